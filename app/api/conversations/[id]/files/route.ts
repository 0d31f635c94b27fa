import { ownerOf } from "@/lib/auth/viewer";
import { getDb } from "@/lib/db/client";
import { getConversation } from "@/lib/db/conversations";
import { uploadFromRequest } from "@/lib/files/upload-request";
import { apiRoute } from "@/lib/http/api-route";

export const dynamic = "force-dynamic";

/** Multipart upload of one `file` into the conversation. */
export const POST = apiRoute(async (request: Request, { params }: { params: Promise<{ id: string }> }, viewer) => {
  const { id } = await params;
  const db = await getDb();
  const ownerId = ownerOf(viewer);
  await getConversation(db, { id, ownerId });
  const result = await uploadFromRequest(db, request, { holder: { conversationId: id }, ownerId });
  return Response.json(result, { status: 201 });
});
