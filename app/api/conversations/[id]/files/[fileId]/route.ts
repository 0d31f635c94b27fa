import { getDb } from "@/lib/db/client";
import { AppError } from "@/lib/errors";
import { findFile } from "@/lib/files/file-store";
import { contentDisposition } from "@/lib/files/sniff";
import { route } from "@/lib/http/responses";

export const dynamic = "force-dynamic";

/** The file's bytes, always as a download: never rendered inline from our origin. */
export const GET = route(async (_request: Request, { params }: { params: Promise<{ id: string; fileId: string }> }) => {
  const { id, fileId } = await params;
  const file = findFile(getDb(), { conversationId: id, fileId });
  if (!file) throw new AppError("not_found:file", `File ${fileId} not found in this conversation.`);
  return new Response(new Uint8Array(file.bytes), {
    headers: {
      "Content-Type": file.mime.split(";")[0] || "application/octet-stream",
      "Content-Length": String(file.size),
      "Content-Disposition": contentDisposition(file.filename),
      "X-Content-Type-Options": "nosniff",
      "Content-Security-Policy": "default-src 'none'; sandbox",
      "Cache-Control": "private, max-age=0",
    },
  });
});
