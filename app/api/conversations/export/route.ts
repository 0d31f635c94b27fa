import { ownerOf } from "@/lib/auth/viewer";
import { getDb } from "@/lib/db/client";
import { AppError } from "@/lib/errors";
import { exportableConversationIds, exportConversation } from "@/lib/export/export-conversation";
import { exportFilename } from "@/lib/export/filename";
import { conversationMarkdown } from "@/lib/export/markdown";
import { ZipWriter } from "@/lib/export/zip-writer";
import { contentDisposition } from "@/lib/files/sniff";
import { apiRoute } from "@/lib/http/api-route";
import { parseWith } from "@/lib/http/responses";
import { exportQuery } from "../schema";

export const dynamic = "force-dynamic";

/**
 * Every conversation of the user as one ZIP: per conversation its JSON export and its Markdown.
 * Streamed: one conversation is read and held at a time, however many there are.
 */
export const GET = apiRoute(async (request: Request, _context: unknown, viewer) => {
  const query = parseWith(exportQuery, Object.fromEntries(new URL(request.url).searchParams));
  if (query.format !== "json") {
    throw new AppError("bad_request:export_format", "The archive always holds JSON and Markdown; leave format out.");
  }
  const db = await getDb();
  const ownerId = ownerOf(viewer);
  const ids = await exportableConversationIds(db, { ownerId });
  const zip = new ZipWriter();
  let next = 0;
  const stream = new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        // Until something is enqueued: a pull that enqueues nothing is never called again.
        for (let id = ids[next++]; id !== undefined; id = ids[next++]) {
          let document: Awaited<ReturnType<typeof exportConversation>>;
          try {
            document = await exportConversation(db, { id, ownerId, withFiles: query.files === "1" });
          } catch (error) {
            // Deleted since the list was read: it is simply not in the archive.
            if (error instanceof AppError && error.kind === "not_found") continue;
            throw error;
          }
          const prefix = String(next).padStart(4, "0");
          const modified = new Date(document.conversation.updatedAt);
          const json = exportFilename(document.conversation.title, "json").name;
          const markdown = exportFilename(document.conversation.title, "md").name;
          controller.enqueue(await zip.entry(`${prefix} ${json}`, Buffer.from(JSON.stringify(document)), modified));
          controller.enqueue(
            await zip.entry(`${prefix} ${markdown}`, Buffer.from(conversationMarkdown(document)), modified),
          );
          return;
        }
        controller.enqueue(zip.end());
        controller.close();
      } catch (error) {
        console.error("[export] archive failed", error);
        controller.error(error);
      }
    },
  });
  const day = new Date().toISOString().slice(0, 10);
  return new Response(stream, {
    headers: {
      "Content-Type": "application/zip",
      "Content-Disposition": contentDisposition(`ollama-web-conversations-${day}.zip`),
      "Cache-Control": "private, no-store",
    },
  });
});
