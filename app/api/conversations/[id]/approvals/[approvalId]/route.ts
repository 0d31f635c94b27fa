import { ownerOf } from "@/lib/auth/viewer";
import { decideApproval } from "@/lib/chat/chat-service";
import { onRunOwner } from "@/lib/cluster/cluster";
import { getDb } from "@/lib/db/client";
import { getConversation } from "@/lib/db/conversations";
import { apiRoute } from "@/lib/http/api-route";
import { parseJsonBody } from "@/lib/http/responses";
import { approvalBody } from "../../../schema";

export const dynamic = "force-dynamic";

/**
 * The user's decision on a tool call that waits for approval (docs/security.md, "Tools that act need the
 * user's consent"): 200 once the call has it, 409 when nothing waits under that id, from the app instance
 * holding the run (docs/cluster.md, "Several app instances").
 */
export const POST = apiRoute(
  async (request: Request, { params }: { params: Promise<{ id: string; approvalId: string }> }, viewer) => {
    const { id, approvalId } = await params;
    const { decision } = await parseJsonBody(request, approvalBody);
    const ownerId = ownerOf(viewer);
    await getConversation(await getDb(), { id, ownerId });
    const decided = { conversationId: id, approvalId, decision, decidedBy: ownerId };
    const answer = await onRunOwner({ kind: "approval", ...decided }, () => decideApproval(id, decided));
    return Response.json(answer);
  },
);
