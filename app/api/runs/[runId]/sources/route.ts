import { ownerOf } from "@/lib/auth/viewer";
import { getDb } from "@/lib/db/client";
import { getConversation } from "@/lib/db/conversations";
import { listRunSources } from "@/lib/db/run-sources";
import { getRun } from "@/lib/db/runs";
import { apiRoute } from "@/lib/http/api-route";

export const dynamic = "force-dynamic";

/** The run's sources without their text (docs/research.md, "The source store"). */
export const GET = apiRoute(async (_request: Request, { params }: { params: Promise<{ runId: string }> }, viewer) => {
  const { runId } = await params;
  const db = await getDb();
  const run = await getRun(db, { id: runId });
  // Someone else's run is "not found", like a missing one.
  await getConversation(db, { id: run.conversationId, ownerId: ownerOf(viewer) });
  return Response.json({ sources: await listRunSources(db, { runId }) });
});
