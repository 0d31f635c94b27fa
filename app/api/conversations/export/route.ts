import { ownerOf } from "@/lib/auth/viewer";
import { getDb } from "@/lib/db/client";
import { exportableConversationIds } from "@/lib/db/conversation-transfer";
import { exportableProjectIds } from "@/lib/db/project-transfer";
import { AppError } from "@/lib/errors";
import { exportChunks, exportConversation } from "@/lib/export/export-conversation";
import { exportProject } from "@/lib/export/export-project";
import { exportFilename } from "@/lib/export/filename";
import { conversationMarkdown } from "@/lib/export/markdown";
import { pulledStream } from "@/lib/export/pulled-stream";
import { ZipWriter } from "@/lib/export/zip-writer";
import { contentDisposition } from "@/lib/files/sniff";
import { apiRoute } from "@/lib/http/api-route";
import { parseWith } from "@/lib/http/responses";
import { exportQuery } from "../schema";

export const dynamic = "force-dynamic";

/**
 * Every conversation of the user as one ZIP: first each of their projects once, as its JSON
 * document under `projects/` (with its files), then per conversation its JSON export (naming its
 * project, whose files are in the project's document) and its Markdown. Streamed: one project or
 * conversation is read and held at a time, however many there are, and with `files=1` one file's
 * content at a time.
 */
export const GET = apiRoute(async (request: Request, _context: unknown, viewer) => {
  const query = parseWith(exportQuery, Object.fromEntries(new URL(request.url).searchParams));
  if (query.format !== "json") {
    throw new AppError("bad_request:export_format", "The archive always holds JSON and Markdown; leave format out.");
  }
  const db = await getDb();
  const ownerId = ownerOf(viewer);
  const projectIds = await exportableProjectIds(db, { ownerId });
  const ids = await exportableConversationIds(db, { ownerId });
  const zip = new ZipWriter();
  const withFiles = query.files === "1";
  async function* archive(): AsyncGenerator<Buffer> {
    for (const [index, id] of projectIds.entries()) {
      const document = await exportProject(db, { id, ownerId });
      // Deleted since the list was read: it is simply not in the archive.
      if (!document) continue;
      const name = `projects/${String(index + 1).padStart(4, "0")} ${exportFilename(document.project.name, "json").name}`;
      const content = exportChunks(db, document, { withFiles });
      yield* zip.streamEntry(name, content, new Date(document.project.updatedAt));
    }
    for (const [index, id] of ids.entries()) {
      let document: Awaited<ReturnType<typeof exportConversation>>;
      try {
        document = await exportConversation(db, { id, ownerId, projectFiles: false });
      } catch (error) {
        // Deleted since the list was read: it is simply not in the archive.
        if (error instanceof AppError && error.kind === "not_found") continue;
        throw error;
      }
      const prefix = String(index + 1).padStart(4, "0");
      const modified = new Date(document.conversation.updatedAt);
      const json = exportFilename(document.conversation.title, "json").name;
      const markdown = exportFilename(document.conversation.title, "md").name;
      // The JSON's pieces (with files=1 one file's content at a time), deflated as they come.
      const content = exportChunks(db, document, { withFiles });
      yield* zip.streamEntry(`${prefix} ${json}`, content, modified);
      yield await zip.entry(`${prefix} ${markdown}`, Buffer.from(conversationMarkdown(document)), modified);
    }
    yield zip.end();
  }
  const stream = pulledStream(archive(), "archive");
  const day = new Date().toISOString().slice(0, 10);
  return new Response(stream, {
    headers: {
      "Content-Type": "application/zip",
      "Content-Disposition": contentDisposition(`ollama-web-conversations-${day}.zip`),
      "Cache-Control": "private, no-store",
    },
  });
});
