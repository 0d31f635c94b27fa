import "server-only";
import type { Db } from "@/lib/db/client";
import { finishRun } from "@/lib/db/runs";
import type { LiveRuns } from "./live-run";

const SHUT_DOWN = "The server shut down while this answer was being written.";

/**
 * Graceful shutdown (issue 7): every running run is stored as `interrupted` with the answer it had
 * streamed, and why as an `error` event (so a reload words it in the user's language), then aborted. Synchronous on purpose: it also runs
 * from the process's `exit` event, where nothing asynchronous happens any more.
 */
export function interruptLiveRuns(db: Db, liveRuns: LiveRuns): number {
  let count = 0;
  for (const live of liveRuns.active()) {
    // A start still being prepared has stored nothing: aborting it is enough.
    if (!live.isStarted) live.controller.abort(new DOMException("The server is shutting down.", "AbortError"));
    if (live.finalized || !live.isStarted) continue;
    live.finalized = true;
    finishRun(db, {
      runId: live.runId,
      messageId: live.messageId,
      status: "interrupted",
      iterations: 0,
      inputTokens: 0,
      outputTokens: 0,
      error: SHUT_DOWN,
      answer: live.answerText,
    });
    live.emit("error", { code: "unavailable:server_shutdown", message: SHUT_DOWN, retryable: true });
    live.controller.abort(new DOMException("The server is shutting down.", "AbortError"));
    live.end();
    count++;
  }
  return count;
}
