import "server-only";
import { type Db, writeAtExit } from "@/lib/db/client";
import { endMessage, finishRun, type RunEnd, runEndStatements, runEventStatement } from "@/lib/db/runs";
import type { SentRunEvent } from "@/lib/protocol/run-events";
import type { LiveRun, LiveRuns } from "./live-run";

const SHUT_DOWN = "The server shut down while this answer was being written.";

/**
 * Ends every running run for a shutdown: each gets an `error` event saying why (so a reload words it
 * in the user's language) and is aborted and closed; a start still being prepared, which has stored
 * nothing, is only aborted. Returns the runs to store as `interrupted`, with the answer each had
 * streamed and its `error` event.
 */
function endForShutdown(liveRuns: LiveRuns): { live: LiveRun; end: RunEnd; error: SentRunEvent | undefined }[] {
  const ended = [];
  for (const live of liveRuns.active()) {
    if (!live.isStarted) live.controller.abort(new DOMException("The server is shutting down.", "AbortError"));
    // A run that claimed its own end (or was claimed by an account's removal) stores it itself.
    if (!live.isStarted || !live.claimEnd()) continue;
    const end: RunEnd = {
      messageId: live.messageId,
      status: "interrupted",
      iterations: 0,
      inputTokens: 0,
      outputTokens: 0,
      error: SHUT_DOWN,
      answer: live.answer.text,
    };
    const error = live.emit("error", { code: "unavailable:server_shutdown", message: SHUT_DOWN, retryable: true });
    live.controller.abort(new DOMException("The server is shutting down.", "AbortError"));
    live.end();
    ended.push({ live, end, error });
  }
  return ended;
}

/**
 * Graceful shutdown (docs/architecture.md, "Persistence"): every running run is stored as
 * `interrupted` (`endForShutdown`).
 */
export async function interruptLiveRuns(db: Db, liveRuns: LiveRuns): Promise<number> {
  const ended = endForShutdown(liveRuns);
  // After each run's earlier writes (its `error` event among them): its stored events come before its end.
  await Promise.all(
    ended.map(({ live, end }) => live.writesSettled().then(() => finishRun(db, { runId: live.runId, ...end }))),
  );
  return ended.length;
}

/**
 * The same from the process's `exit` event, where nothing can be awaited: on SQLite each run's end
 * and its `error` event are stored at once (`writeAtExit`); events still in its write queue are
 * lost. On PostgreSQL nothing can be stored now, and the next start marks the runs interrupted.
 * Returns how many runs were stored.
 */
export function interruptLiveRunsAtExit(db: Db, liveRuns: LiveRuns): number {
  const ended = endForShutdown(liveRuns).filter(({ live }) => live.run);
  const now = Date.now();
  const stored = writeAtExit(db, (db) =>
    ended.flatMap(({ live, end, error }) => [
      ...(error ? [runEventStatement(db, { runId: live.runId, seq: Number(error.id), event: error })] : []),
      ...runEndStatements(db, live.run!, end, endMessage(live.run!, end, now)),
    ]),
  );
  if (!stored) return 0;
  // Each `error` event also sits in its run's write queue, which may still run if the process lives on.
  for (const { live, error } of ended) if (error) live.markStored(error);
  return ended.length;
}

/**
 * For an app instance declared dead (docs/cluster.md, "Several app instances"): a survivor has
 * already stored its runs as interrupted, so each started run is aborted and closed WITHOUT storing
 * anything more (its follow-ups not yet taken stay stored, unsent). A start still being prepared
 * goes on: its run will be stored under this instance, registered again. Returns the ids of the runs
 * dropped: one stored after the survivor's sweep is still running, and the caller recovers it.
 */
export function dropLiveRuns(liveRuns: LiveRuns): string[] {
  const started = liveRuns.active().filter((live) => live.isStarted);
  for (const live of started) {
    // The survivor stored the run's end: nobody here stores it again.
    live.claimEnd();
    live.interrupts.close();
    live.controller.abort(new DOMException("Another server took over this answer.", "AbortError"));
    live.end();
    liveRuns.remove(live);
  }
  return started.map((live) => live.runId);
}
