import "server-only";
import { z } from "zod";
import { acceptInterrupt } from "@/lib/chat/accept-interrupt";
import { decideApproval, stopChat } from "@/lib/chat/chat-service";
import type { LiveRuns } from "@/lib/chat/live-run";
import { MAX_MESSAGE_CHARS } from "@/lib/chat/message-limits";
import type { Db } from "@/lib/db/client";
import { approvalDecisions } from "@/lib/protocol/run-events";

/**
 * What another app instance asks of the instance holding a conversation's run (docs/cluster.md,
 * "Several app instances"): stop it, take a follow-up, or take the user's decision on a tool call
 * that waits for approval (`decidedBy`: the account signed in there). The instance the user
 * reached has already checked that the conversation is theirs; the owner answers exactly as it
 * does for its own requests.
 */

export const ownerRequest = z.discriminatedUnion("kind", [
  z.object({ kind: z.literal("stop"), conversationId: z.string().min(1) }),
  z.object({
    kind: z.literal("interrupt"),
    conversationId: z.string().min(1),
    message: z.string().min(1).max(MAX_MESSAGE_CHARS),
    interruptId: z.uuid(),
  }),
  z.object({
    kind: z.literal("approval"),
    conversationId: z.string().min(1),
    approvalId: z.string().min(1).max(100),
    decision: z.enum(approvalDecisions),
    decidedBy: z.string().min(1).nullable(),
  }),
]);
export type OwnerRequest = z.infer<typeof ownerRequest>;

/** The handler an `InstanceLink` answers other instances with. */
export function ownerRequestHandler(db: Db, liveRuns: LiveRuns): (body: unknown) => Promise<unknown> {
  return async (body) => {
    const request = ownerRequest.parse(body);
    if (request.kind === "stop") return stopChat(request.conversationId, liveRuns);
    if (request.kind === "approval") return decideApproval(request.conversationId, request, liveRuns);
    return acceptInterrupt(db, request, liveRuns);
  };
}
