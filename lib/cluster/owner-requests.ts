import "server-only";
import { z } from "zod";
import { acceptInterrupt } from "@/lib/chat/accept-interrupt";
import { stopChat } from "@/lib/chat/chat-service";
import type { LiveRuns } from "@/lib/chat/live-run";
import { MAX_MESSAGE_CHARS } from "@/lib/chat/message-limits";
import type { Db } from "@/lib/db/client";

/**
 * What another app instance asks of the instance holding a conversation's run (docs/architecture.md,
 * "Several app instances"): stop it, or take a follow-up. The instance the user reached has already
 * checked that the conversation is theirs; the owner answers exactly as it does for its own requests.
 */

export const ownerRequest = z.discriminatedUnion("kind", [
  z.object({ kind: z.literal("stop"), conversationId: z.string().min(1) }),
  z.object({
    kind: z.literal("interrupt"),
    conversationId: z.string().min(1),
    message: z.string().min(1).max(MAX_MESSAGE_CHARS),
    interruptId: z.uuid(),
  }),
]);
export type OwnerRequest = z.infer<typeof ownerRequest>;

/** The handler an `InstanceLink` answers other instances with. */
export function ownerRequestHandler(db: Db, liveRuns: LiveRuns): (body: unknown) => Promise<unknown> {
  return async (body) => {
    const request = ownerRequest.parse(body);
    if (request.kind === "stop") return stopChat(request.conversationId, liveRuns);
    return acceptInterrupt(db, request, liveRuns);
  };
}
