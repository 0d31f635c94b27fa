import { ownerOf } from "@/lib/auth/viewer";
import { getDb } from "@/lib/db/client";
import { findOwnedFile } from "@/lib/db/files";
import { contentDisposition } from "@/lib/files/sniff";
import { apiRoute } from "@/lib/http/api-route";

export const dynamic = "force-dynamic";

/** The file's bytes, always as a download: never rendered inline from our origin. */
export const GET = apiRoute(
  async (_request: Request, { params }: { params: Promise<{ id: string; fileId: string }> }, viewer) => {
    const { id, fileId } = await params;
    const file = await findOwnedFile(await getDb(), { conversationId: id, ownerId: ownerOf(viewer), fileId });
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
  },
);
