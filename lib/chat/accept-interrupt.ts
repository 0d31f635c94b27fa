import "server-only";
import type { Db } from "@/lib/db/client";
import { listHeldInterrupts, releaseInterrupts, storeInterrupt } from "@/lib/db/interrupts";
import { listMessages } from "@/lib/db/messages";
import { getConfig } from "@/lib/env-config";
import { AppError } from "@/lib/errors";
import type { InterruptAccepted } from "@/lib/protocol/run-events";
import type { LiveRuns } from "./live-run";

/** A follow-up; its id is chosen by the instance the user reached, so a late verdict can be checked. */
export interface FollowUp {
  conversationId: string;
  message: string;
  interruptId?: string;
}

/**
 * Hands a follow-up to the conversation's running agent, by the instance that holds the run: its
 * id while a run is active; 409 otherwise, 429 once the run has taken as many interrupts, or as many
 * bytes of them, as it may. The caller has checked that the conversation is the user's.
 */
export async function acceptInterrupt(
  db: Db,
  { conversationId, message, interruptId }: FollowUp,
  liveRuns: LiveRuns,
): Promise<InterruptAccepted> {
  const live = liveRuns.forConversation(conversationId);
  // Held on the server from the moment it is accepted (a closed tab loses nothing), and stored
  // before the run can take it or hand it to the next turn (`InterruptQueue.enqueue`).
  const result = await live?.interrupts.enqueue(
    message,
    {
      store: (interrupt) => storeInterrupt(db, { interrupt, conversationId, runId: live.runId }),
      remove: (interrupt) => releaseInterrupts(db, { ids: [interrupt.id] }),
    },
    interruptId,
  );
  if (live && result && "accepted" in result) {
    return { interruptId: result.accepted.id, runId: live.runId, pending: live.interrupts.size };
  }
  const refusal = result && "refused" in result ? result.refused : "closed";
  const config = getConfig();
  if (refusal === "too_many") {
    throw new AppError(
      "rate_limited:interrupts",
      `This answer has already taken ${config.MAX_INTERRUPTS_PER_RUN} follow-ups, the most one answer takes. Send this one as a new message once the answer is done.`,
      { retryable: true, details: { max: config.MAX_INTERRUPTS_PER_RUN } },
    );
  }
  if (refusal === "too_large") {
    throw new AppError(
      "rate_limited:interrupt_bytes",
      `Follow-ups to one answer are limited to ${config.MAX_INTERRUPT_BYTES_PER_RUN} bytes in total, and this one would go over. Send it as a new message once the answer is done.`,
      { retryable: true, details: { maxBytes: config.MAX_INTERRUPT_BYTES_PER_RUN } },
    );
  }
  throw new AppError(
    "conflict:no_active_run",
    "Nothing is running in this conversation; send the message as a new turn.",
  );
}

/**
 * A follow-up sent to the run's owner whose verdict did not come in time (`unavailable:instance_unreachable`):
 * accepted after all when the owner stored it (held, or already taken by its run), so a retry does
 * not send it twice; undefined when it did not.
 */
export async function storedFollowUp(
  db: Db,
  { conversationId, interruptId }: { conversationId: string; interruptId: string },
): Promise<InterruptAccepted | undefined> {
  const held = await listHeldInterrupts(db, { conversationId });
  const runId =
    held.find((interrupt) => interrupt.id === interruptId)?.runId ??
    (await listMessages(db, { conversationId })).find((message) => message.id === interruptId)?.runId;
  if (!runId) return undefined;
  const pending = held.filter((interrupt) => interrupt.runId === runId && !interrupt.unsent).length;
  return { interruptId, runId, pending };
}
