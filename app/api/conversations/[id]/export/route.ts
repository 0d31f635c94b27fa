import { ownerOf } from "@/lib/auth/viewer";
import { getLiveRuns } from "@/lib/chat/chat-service";
import { getDb } from "@/lib/db/client";
import { getConversation } from "@/lib/db/conversations";
import { AppError } from "@/lib/errors";
import { exportChunks, exportConversation } from "@/lib/export/export-conversation";
import { exportFilename } from "@/lib/export/filename";
import { conversationMarkdown } from "@/lib/export/markdown";
import { pulledStream } from "@/lib/export/pulled-stream";
import { contentDisposition } from "@/lib/files/sniff";
import { apiRoute } from "@/lib/http/api-route";
import { parseWith } from "@/lib/http/responses";
import { exportQuery } from "../../schema";

export const dynamic = "force-dynamic";

/**
 * One conversation as a download: the JSON export (importable) or Markdown (for reading). The JSON
 * is streamed, with `files=1` one file's content at a time.
 */
export const GET = apiRoute(async (request: Request, { params }: { params: Promise<{ id: string }> }, viewer) => {
  const { id } = await params;
  const query = parseWith(exportQuery, Object.fromEntries(new URL(request.url).searchParams));
  const db = await getDb();
  const ownerId = ownerOf(viewer);
  await getConversation(db, { id, ownerId });
  if (getLiveRuns().forConversation(id)) {
    throw new AppError("conflict:run_active", "An answer is being written: export the conversation once it is done.");
  }
  const document = await exportConversation(db, { id, ownerId });
  const { name, ascii } = exportFilename(document.conversation.title, query.format);
  const body =
    query.format === "md"
      ? conversationMarkdown(document)
      : pulledStream(exportChunks(db, document, { withFiles: query.files === "1", indent: 2 }), "conversation");
  return new Response(body, {
    headers: {
      "Content-Type": query.format === "md" ? "text/markdown; charset=utf-8" : "application/json; charset=utf-8",
      "Content-Disposition": contentDisposition(name, ascii),
      "Cache-Control": "private, no-store",
    },
  });
});
