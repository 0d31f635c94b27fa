import type { SynthesisOutcome } from "@/lib/agent/synthesis";
import type { RunStatus } from "@/lib/db/schema";
import { AppError, isAbortError } from "@/lib/errors";

/** How a run ended, as stored: every status but `running`. */
export type EndStatus = Exclude<RunStatus, "running">;

/** How the agent's part of the run went. */
export type AgentOutcome =
  /** The loop answered directly (no synthesis), or its synthesis ended as `synthesis` says. */
  | { ended: "answered"; synthesis?: SynthesisOutcome }
  /** The loop or the synthesis threw; `answerStreamed`: some of the answer was already shown. */
  | { ended: "threw"; error: unknown; answerStreamed: boolean };

/** What decides a run's status, gathered once the agent is done and the run's writes settled. */
export interface RunEndFacts {
  outcome: AgentOutcome;
  /** The run's signal was aborted (Stop, a shutdown, an account's removal) when the agent returned. */
  aborted: boolean;
  /** The loop reached `MAX_ITERATIONS` (it answered with what it had). */
  hitMaxIterations: boolean;
  /** The first of the run's writes that was lost (`RunWrites.settled`), if one was. */
  lostWrite?: unknown;
}

export interface RunVerdict {
  status: EndStatus;
  /** The loop's draft stands in for a synthesis that failed before writing anything. */
  fallback: boolean;
  /** `done.iterationLimit`. */
  iterationLimit: boolean;
  /** The run's error (its `error` event, `runs.error`), if it has one. */
  failure?: AppError;
}

/**
 * The status a run ends with, from how it went — pure, so every case is one row of a table
 * (run-status.test.ts). What streamed stands: an answer cut by its model's failure is `interrupted`,
 * and only a synthesis that wrote nothing shows the loop's draft (`fallback`, still `complete`).
 * Stop (or anything that aborts the run) makes it `stopped` whatever the agent said. A write of the
 * run that was lost makes it an error that says so, unless it already has one. A tool call whose
 * approval timed out is no end: the tool's result says so and the run goes on. `toFailure` turns
 * what the agent threw into the error the user reads.
 */
export function runVerdict(facts: RunEndFacts, toFailure: (error: unknown) => AppError): RunVerdict {
  const { outcome } = facts;
  let status: EndStatus = "complete";
  let fallback = false;
  let failure: AppError | undefined;
  if (outcome.ended === "answered") {
    const synthesis = outcome.synthesis;
    if (synthesis && synthesis.ended !== "complete") {
      failure = toFailure(synthesis.failure);
      if (synthesis.ended === "interrupted") status = "interrupted";
      else if (synthesis.ended === "draft") fallback = true;
      else status = "error";
    }
  } else if (facts.aborted || isAbortError(outcome.error)) {
    status = "stopped";
  } else {
    // A direct answer that had begun to stream is kept as it was cut.
    status = outcome.answerStreamed ? "interrupted" : "error";
    failure = toFailure(outcome.error);
  }
  if (facts.aborted) status = "stopped";
  // A reload would not show all of the run.
  if (facts.lostWrite !== undefined && !failure) {
    status = "error";
    const lost = facts.lostWrite;
    failure = new AppError(
      "internal",
      `Part of this answer could not be stored: ${lost instanceof Error ? lost.message : String(lost)}`,
    );
  }
  return { status, fallback, iterationLimit: facts.hitMaxIterations, failure };
}
