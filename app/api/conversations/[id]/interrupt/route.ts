import { z } from "zod";
import { ownerOf } from "@/lib/auth/viewer";
import { getLiveRuns } from "@/lib/chat/chat-service";
import { getDb } from "@/lib/db/client";
import { getConversation } from "@/lib/db/queries";
import { AppError } from "@/lib/errors";
import { apiRoute } from "@/lib/http/api-route";
import { parseJsonBody } from "@/lib/http/responses";
import { MAX_MESSAGE_CHARS } from "../../../chat/schema";

export const dynamic = "force-dynamic";

const interruptBody = z.object({
  message: z
    .string()
    .max(MAX_MESSAGE_CHARS)
    .refine((text) => text.trim().length > 0, "must not be empty"),
});

/** A follow-up for the running agent (SPEC §9): 202 while a run is active, 409 otherwise. */
export const POST = apiRoute(async (request: Request, { params }: { params: Promise<{ id: string }> }, viewer) => {
  const { id } = await params;
  const body = await parseJsonBody(request, interruptBody);
  getConversation(getDb(), { id, ownerId: ownerOf(viewer) });
  const live = getLiveRuns().forConversation(id);
  if (!live?.interrupts.enqueue(body.message)) {
    throw new AppError(
      "conflict:no_active_run",
      "Nothing is running in this conversation; send the message as a new turn.",
    );
  }
  return Response.json({ queued: true, runId: live.runId, pending: live.interrupts.size }, { status: 202 });
});
