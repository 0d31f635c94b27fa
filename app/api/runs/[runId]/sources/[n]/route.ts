import { ownerOf } from "@/lib/auth/viewer";
import { getDb } from "@/lib/db/client";
import { getConversation } from "@/lib/db/conversations";
import { getRunSource } from "@/lib/db/run-sources";
import { getRun } from "@/lib/db/runs";
import { AppError } from "@/lib/errors";
import { apiRoute } from "@/lib/http/api-route";

export const dynamic = "force-dynamic";

/** Source n of the run, whole: its text and the parts it was read in (docs/research.md, "The source store"). */
export const GET = apiRoute(
  async (_request: Request, { params }: { params: Promise<{ runId: string; n: string }> }, viewer) => {
    const { runId, n } = await params;
    if (!/^[1-9]\d{0,8}$/.test(n)) {
      throw new AppError("bad_request:validation", "Invalid request: n: a source number (1, 2, …) is required.");
    }
    const db = await getDb();
    const run = await getRun(db, { id: runId });
    // Someone else's run is "not found", like a missing one.
    await getConversation(db, { id: run.conversationId, ownerId: ownerOf(viewer) });
    return Response.json(await getRunSource(db, { runId, n: Number(n) }));
  },
);
