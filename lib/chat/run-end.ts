import "server-only";
import { writeWhenFree } from "@/lib/db/busy";
import type { Db } from "@/lib/db/client";
import { finishRun } from "@/lib/db/runs";
import { AppError } from "@/lib/errors";
import type { Usage } from "@/lib/llm/types";
import type { CitationReport } from "@/lib/protocol/citations";
import type { RunFailure } from "@/lib/protocol/run-events";
import type { LiveRun } from "./live-run";
import { findRunCitations, storeRunCitations } from "./run-citations";
import type { RunHooks } from "./run-hooks";
import type { RunVerdict } from "./run-status";

export interface RunEndOptions extends Pick<RunHooks, "onEnd" | "onEndNotStored"> {
  db: Db;
  /** The run, whose end its caller has claimed (`LiveRun.claimEnd`). */
  live: LiveRun;
  verdict: RunVerdict;
  iterations: number;
  usage: Usage;
  startedAt: number;
  /** The run's own check of its answer, already sent (research mode's verified report): stored instead of the finder's. */
  checked?: CitationReport;
  /** A first turn: a complete answer that was stored is titled after `done`. */
  titled: boolean;
}

function errorEvent(error: AppError): RunFailure {
  return {
    code: error.code,
    message: error.message,
    retryable: error.retryable,
    ...(error.details === undefined ? {} : { details: error.details }),
  };
}

/**
 * Stores the end of a run and announces it: `answer done` and the run's `error`, then, after every
 * earlier write of the run, the passage finder's check of the answer's citations (`citations`, when
 * it cites sources the run read), its assistant message and status (`finishRun`) with that check,
 * then `done`. While
 * another process locks the database the run still ends for its client: its last events go out
 * live only, and its end is stored as soon as the database is free. An end that cannot be stored
 * at all is handed to `onEndNotStored` and the client gets why, with no `done` (there is no message
 * to announce). Returns whether the answer is to be titled (`done.titlePending`).
 */
export async function storeRunEnd(options: RunEndOptions): Promise<boolean> {
  const { db, live, verdict, iterations, usage } = options;
  const { status, fallback, failure } = verdict;
  live.stopBusyRetries();
  live.answer.finish();
  if (failure) live.emit("error", errorEvent(failure));
  // The end is stored after every earlier write, so a reload after `done` replays all of it.
  await live.writesSettled();

  const answer = live.answer.text;
  const messageId = live.messageId;
  const citations = options.checked ?? (await findRunCitations(db, { runId: live.runId, answer }));
  if (citations && !options.checked) live.emit("citations", citations);
  const end = () =>
    writeWhenFree(async () => {
      const message = await finishRun(db, {
        runId: live.runId,
        messageId,
        status,
        iterations,
        inputTokens: usage.inputTokens,
        outputTokens: usage.outputTokens,
        generationMs: usage.generationMs,
        error: failure?.message,
        fallback,
        answer,
      });
      // The report belongs to the message: stored once it is, also when a busy database delayed both.
      if (message && citations) await storeRunCitations(db, { messageId, report: citations });
    }, `the end of run ${live.runId}`);
  let stored: boolean;
  try {
    stored = await end();
  } catch (error) {
    // Its row would stay `running` and refuse the conversation's next turns: it is marked failed instead.
    console.error(`[run] could not store the end of run ${live.runId}`, error);
    const reason = `This answer could not be saved: ${error instanceof Error ? error.message : String(error)}`;
    live.emit("error", errorEvent(new AppError("internal", reason)));
    await options.onEndNotStored(reason);
    return false;
  }
  if (!stored && !failure) {
    live.emit(
      "error",
      errorEvent(
        new AppError(
          "unavailable:answer_save_pending",
          "The database is busy (locked by another process): this answer is saved as soon as it is free.",
        ),
      ),
    );
  }
  const titlePending = Boolean(stored && options.titled && status === "complete" && answer.trim());
  const pending = live.interrupts.close();
  options.onEnd?.({ status, pending });
  live.emit("done", {
    messageId,
    iterations,
    usage,
    elapsedMs: Date.now() - options.startedAt,
    ...(status === "stopped" ? { stopped: true } : {}),
    ...(status === "interrupted" ? { interrupted: true } : {}),
    ...(fallback ? { fallback: true } : {}),
    ...(verdict.iterationLimit ? { iterationLimit: true } : {}),
    ...(pending.length > 0 ? { pendingInterrupts: pending } : {}),
    ...(titlePending ? { titlePending: true } : {}),
  });
  await live.writesSettled();
  return titlePending;
}
