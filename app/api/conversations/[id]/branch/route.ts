import { ownerOf } from "@/lib/auth/viewer";
import { getLiveRuns } from "@/lib/chat/chat-service";
import { getDb } from "@/lib/db/client";
import { getConversationDetail } from "@/lib/db/conversation-detail";
import { getConversation, selectBranch } from "@/lib/db/conversations";
import { AppError } from "@/lib/errors";
import { apiRoute } from "@/lib/http/api-route";
import { parseJsonBody } from "@/lib/http/responses";
import { selectBranchBody } from "../../schema";

export const dynamic = "force-dynamic";

/**
 * Switches the branch shown to the one through a message (another version, a search hit) and
 * returns the conversation as `GET` does. Refused while a run works in the conversation: its answer
 * belongs to the branch it was started on.
 */
export const POST = apiRoute(async (request: Request, { params }: { params: Promise<{ id: string }> }, viewer) => {
  const { id } = await params;
  const ownerId = ownerOf(viewer);
  const { messageId } = await parseJsonBody(request, selectBranchBody);
  const db = await getDb();
  await getConversation(db, { id, ownerId });
  if (getLiveRuns().forConversation(id)) {
    throw new AppError("conflict:run_active", "Wait for the answer to finish, or stop it, before switching versions.");
  }
  await selectBranch(db, { id, ownerId, messageId });
  return Response.json(await getConversationDetail(db, { id, ownerId }));
});
