import "server-only";
import { and, eq, sql } from "drizzle-orm";
import type { Db } from "./client";
import { runs } from "./schema";

/**
 * A run whose end (`finishRun`, its message) could not be stored is marked failed by this one small
 * update, so its conversation is free for the next turn (one running run per conversation).
 */
export async function failUnendedRun(db: Db, { runId, error }: { runId: string; error: string }): Promise<void> {
  const now = Date.now();
  await db
    .update(runs)
    .set({ status: "error", error, finishedAt: now, elapsedMs: sql`${now} - ${runs.startedAt}` })
    .where(and(eq(runs.id, runId), eq(runs.status, "running")));
}
