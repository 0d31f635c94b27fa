import { z } from "zod";
import { ownerOf } from "@/lib/auth/viewer";
import { getLiveRuns } from "@/lib/chat/chat-service";
import { MAX_MESSAGE_CHARS } from "@/lib/chat/message-limits";
import { getConfig } from "@/lib/config";
import { getDb } from "@/lib/db/client";
import { storeInterrupt } from "@/lib/db/interrupts";
import { getConversation } from "@/lib/db/queries";
import { AppError } from "@/lib/errors";
import { apiRoute } from "@/lib/http/api-route";
import { parseJsonBody } from "@/lib/http/responses";
import type { InterruptAccepted } from "@/lib/protocol/run-events";

export const dynamic = "force-dynamic";

const interruptBody = z.object({
  message: z
    .string()
    .max(MAX_MESSAGE_CHARS)
    .refine((text) => text.trim().length > 0, "must not be empty"),
});

/**
 * An interrupt (a follow-up for the running agent): 202 with its id while a run is active, 409
 * otherwise, 429 once the run has taken as many interrupts, or as many bytes of them, as it may.
 */
export const POST = apiRoute(async (request: Request, { params }: { params: Promise<{ id: string }> }, viewer) => {
  const { id } = await params;
  const body = await parseJsonBody(request, interruptBody);
  const db = await getDb();
  await getConversation(db, { id, ownerId: ownerOf(viewer) });
  const live = getLiveRuns().forConversation(id);
  // Held on the server from the moment it is accepted: a closed tab loses nothing. The 202 waits
  // for the row (on PostgreSQL the insert is still on its way when enqueue returns).
  let storing: Promise<void> = Promise.resolve();
  const result = live?.interrupts.enqueue(body.message, (interrupt) => {
    storing = storeInterrupt(db, { interrupt, conversationId: id, runId: live.runId });
  });
  await storing;
  if (live && result && "accepted" in result) {
    const accepted: InterruptAccepted = {
      interruptId: result.accepted.id,
      runId: live.runId,
      pending: live.interrupts.size,
    };
    return Response.json(accepted, { status: 202 });
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
});
