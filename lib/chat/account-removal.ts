import "server-only";
import type { Db } from "@/lib/db/client";
import { finishRun, getRun } from "@/lib/db/runs";
import { getLiveRuns } from "./chat-service";
import type { LiveRun } from "./live-run";

const ACCOUNT_REMOVED = "The account was removed, so this answer was stopped.";

/**
 * Ends an account's runs before the account is removed with everything it owns, so that no run
 * writes to rows that are about to vanish: each run stops storing its own end at once, before any
 * await. A running answer is stored as stopped and its subscribers get an `error` and a `done` before
 * the stream closes; a start still being prepared is aborted and then finds its conversation gone
 * (404). Returns how many runs were ended.
 */
export async function stopRunsOf(db: Db, ownerId: string, liveRuns = getLiveRuns()): Promise<number> {
  const owned = liveRuns.ownedBy(ownerId);
  await Promise.all(owned.filter((live) => live.isStarted).map((live) => endForRemoval(db, live)));
  for (const live of owned) {
    live.controller.abort(new DOMException(ACCOUNT_REMOVED, "AbortError"));
    if (live.isStarted) {
      live.end();
      liveRuns.remove(live);
    }
  }
  return owned.length;
}

/** Stores the run as stopped (unless it stored its message already) and tells its subscribers. */
async function endForRemoval(db: Db, live: LiveRun): Promise<void> {
  const storesItsEnd = !live.finalized;
  live.finalized = true;
  live.interrupts.close();
  if (storesItsEnd) {
    await live.writesSettled();
    await finishRun(db, {
      runId: live.runId,
      messageId: live.messageId,
      status: "stopped",
      iterations: 0,
      inputTokens: 0,
      outputTokens: 0,
      error: ACCOUNT_REMOVED,
      answer: live.answerText,
    });
  }
  const run = await getRun(db, { id: live.runId });
  live.emit("error", { code: "not_found:account", message: ACCOUNT_REMOVED, retryable: false });
  live.emit("done", {
    messageId: live.messageId,
    iterations: run.iterations,
    usage: {
      inputTokens: run.inputTokens,
      outputTokens: run.outputTokens,
      totalTokens: run.inputTokens + run.outputTokens,
    },
    elapsedMs: run.elapsedMs ?? 0,
    stopped: true,
  });
  await live.writesSettled();
}
