import { ownerOf } from "@/lib/auth/viewer";
import { acceptInterrupt, storedFollowUp } from "@/lib/chat/accept-interrupt";
import { getLiveRuns } from "@/lib/chat/chat-service";
import { onRunOwner } from "@/lib/cluster/cluster";
import { getDb } from "@/lib/db/client";
import { getConversation } from "@/lib/db/conversations";
import { AppError } from "@/lib/errors";
import { apiRoute } from "@/lib/http/api-route";
import { parseJsonBody } from "@/lib/http/responses";
import { interruptBody } from "../../schema";

export const dynamic = "force-dynamic";

/**
 * An interrupt (a follow-up for the running agent): 202 with its id, or why not (`acceptInterrupt`),
 * from the app instance holding the run (docs/cluster.md, "Several app instances").
 */
export const POST = apiRoute(async (request: Request, { params }: { params: Promise<{ id: string }> }, viewer) => {
  const { id } = await params;
  const body = await parseJsonBody(request, interruptBody);
  const db = await getDb();
  await getConversation(db, { id, ownerId: ownerOf(viewer) });
  const followUp = { conversationId: id, message: body.message, interruptId: crypto.randomUUID() };
  const accepted = await onRunOwner({ kind: "interrupt", ...followUp }, () =>
    acceptInterrupt(db, followUp, getLiveRuns()),
  ).catch(async (error: unknown) => {
    // The owner may have stored it and answered too late: then it was accepted, and a retry would send it twice.
    const stored =
      error instanceof AppError && error.code === "unavailable:instance_unreachable"
        ? await storedFollowUp(db, followUp)
        : undefined;
    if (stored) return stored;
    throw error;
  });
  return Response.json(accepted, { status: 202 });
});
