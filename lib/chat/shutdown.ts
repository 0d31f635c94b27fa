import "server-only";
import type { Db } from "@/lib/db/client";
import { finishRun } from "@/lib/db/runs";
import type { LiveRuns } from "./live-run";

const SHUT_DOWN = "The server shut down while this answer was being written.";

/**
 * Graceful shutdown (issue 7): every running run is stored as `interrupted` with the answer it had
 * streamed, and why as an `error` event (so a reload words it in the user's language), then
 * aborted. What it stores is decided before its first await; it also runs from the process's
 * `exit` event, where only promises that settle without I/O still run (enough for SQLite, whose
 * queries do).
 */
export async function interruptLiveRuns(db: Db, liveRuns: LiveRuns): Promise<number> {
  const ending: Promise<unknown>[] = [];
  for (const live of liveRuns.active()) {
    // A start still being prepared has stored nothing: aborting it is enough.
    if (!live.isStarted) live.controller.abort(new DOMException("The server is shutting down.", "AbortError"));
    if (live.finalized || !live.isStarted) continue;
    live.finalized = true;
    const answer = live.answerText;
    live.emit("error", { code: "unavailable:server_shutdown", message: SHUT_DOWN, retryable: true });
    live.controller.abort(new DOMException("The server is shutting down.", "AbortError"));
    live.end();
    // After the run's earlier writes: its stored events come before its end.
    ending.push(
      live.writesSettled().then(() =>
        finishRun(db, {
          runId: live.runId,
          messageId: live.messageId,
          status: "interrupted",
          iterations: 0,
          inputTokens: 0,
          outputTokens: 0,
          error: SHUT_DOWN,
          answer,
        }),
      ),
    );
  }
  await Promise.all(ending);
  return ending.length;
}
