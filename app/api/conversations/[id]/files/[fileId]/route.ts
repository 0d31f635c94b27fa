import { ownerOf } from "@/lib/auth/viewer";
import { getDb } from "@/lib/db/client";
import { findOwnedFile } from "@/lib/db/files";
import { apiRoute } from "@/lib/http/api-route";
import { fileDownload } from "@/lib/http/responses";

export const dynamic = "force-dynamic";

/** The file's bytes, always as a download. */
export const GET = apiRoute(
  async (_request: Request, { params }: { params: Promise<{ id: string; fileId: string }> }, viewer) => {
    const { id, fileId } = await params;
    return fileDownload(await findOwnedFile(await getDb(), { conversationId: id, ownerId: ownerOf(viewer), fileId }));
  },
);
