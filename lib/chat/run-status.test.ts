import { describe, expect, it } from "vitest";
import type { SynthesisOutcome } from "@/lib/agent/synthesis";
import { AppError } from "@/lib/errors";
import { emptyUsage } from "@/lib/llm/types";
import { type AgentOutcome, type RunEndFacts, type RunVerdict, runVerdict } from "./run-status";

/** Every way a run ends, and the status it is stored with: no database, no agent, one row each. */

const modelDown = new Error("connection reset by Ollama");
const abort = new DOMException("The operation was aborted.", "AbortError");
const describeError = (error: unknown) =>
  error instanceof AppError ? error : new AppError("upstream", error instanceof Error ? error.message : String(error));

const direct: AgentOutcome = { ended: "answered" };
const synthesised = (ended: SynthesisOutcome["ended"]): AgentOutcome => ({
  ended: "answered",
  synthesis:
    ended === "complete"
      ? { ended, text: "The answer.", usage: emptyUsage() }
      : { ended, text: ended === "failed" ? "" : "Half", usage: emptyUsage(), failure: modelDown },
});
const threw = (error: unknown, answerStreamed = false): AgentOutcome => ({ ended: "threw", error, answerStreamed });

const facts = (outcome: AgentOutcome, more: Partial<Omit<RunEndFacts, "outcome">> = {}): RunEndFacts => ({
  outcome,
  aborted: false,
  hitMaxIterations: false,
  ...more,
});
const verdict = (status: RunVerdict["status"], more: Partial<Omit<RunVerdict, "status">> = {}) => ({
  status,
  fallback: false,
  iterationLimit: false,
  failure: undefined,
  ...more,
});
const failedWith = (message: string) => expect.objectContaining({ message });

const table: [string, RunEndFacts, ReturnType<typeof verdict>][] = [
  ["a direct answer is complete", facts(direct), verdict("complete")],
  ["a synthesis that streamed to its end is complete", facts(synthesised("complete")), verdict("complete")],
  [
    "a synthesis cut by its model's failure keeps what streamed: interrupted, with the failure as the run's error",
    facts(synthesised("interrupted")),
    verdict("interrupted", { failure: failedWith(modelDown.message) }),
  ],
  [
    "a synthesis that failed before any text shows the loop's draft: complete, labelled fallback, the failure reported",
    facts(synthesised("draft")),
    verdict("complete", { fallback: true, failure: failedWith(modelDown.message) }),
  ],
  [
    "a synthesis that failed with neither text nor draft is an error",
    facts(synthesised("failed")),
    verdict("error", { failure: failedWith(modelDown.message) }),
  ],
  [
    "the loop failing before any answer is an error",
    facts(threw(modelDown)),
    verdict("error", { failure: failedWith(modelDown.message) }),
  ],
  [
    "a direct answer cut as it streamed is kept: interrupted",
    facts(threw(modelDown, true)),
    verdict("interrupted", { failure: failedWith(modelDown.message) }),
  ],
  ["Stop while the loop works is stopped, with no error", facts(threw(abort), { aborted: true }), verdict("stopped")],
  [
    "Stop while a tool call waits for approval (the wait rejects with the abort) is stopped",
    facts(threw(abort, false), { aborted: true }),
    verdict("stopped"),
  ],
  [
    "an abort error of the model's request is stopped even before the signal says so",
    facts(threw(abort)),
    verdict("stopped"),
  ],
  [
    "Stop after the agent answered still ends the run as stopped",
    facts(synthesised("complete"), { aborted: true }),
    verdict("stopped"),
  ],
  [
    "Stop after the synthesis failed is stopped, its failure still reported",
    facts(synthesised("interrupted"), { aborted: true }),
    verdict("stopped", { failure: failedWith(modelDown.message) }),
  ],
  [
    "an approval that timed out is a tool result, not an end: the run that answers is complete",
    facts(synthesised("complete")),
    verdict("complete"),
  ],
  [
    "reaching MAX_ITERATIONS is a complete answer with the iteration limit flagged",
    facts(synthesised("complete"), { hitMaxIterations: true }),
    verdict("complete", { iterationLimit: true }),
  ],
  [
    "a failure after reaching MAX_ITERATIONS keeps both",
    facts(threw(modelDown), { hitMaxIterations: true }),
    verdict("error", { iterationLimit: true, failure: failedWith(modelDown.message) }),
  ],
  [
    "a lost write fails a complete run with an error that says so",
    facts(direct, { lostWrite: new Error("disk I/O error") }),
    verdict("error", { failure: failedWith("Part of this answer could not be stored: disk I/O error") }),
  ],
  [
    "a lost write fails a stopped run too",
    facts(threw(abort), { aborted: true, lostWrite: new Error("database is locked") }),
    verdict("error", { failure: failedWith("Part of this answer could not be stored: database is locked") }),
  ],
  [
    "a lost write leaves a run that already failed with its own status and error",
    facts(synthesised("interrupted"), { lostWrite: new Error("disk I/O error") }),
    verdict("interrupted", { failure: failedWith(modelDown.message) }),
  ],
];

describe("a run's status from how it ended", () => {
  it.each(table)("%s", (_rule, given, expected) => {
    expect(runVerdict(given, describeError)).toEqual(expected);
  });

  it("the run's error is the described error: its code and retryability reach the client", () => {
    const busy = new AppError("unavailable:database_busy", "The database is busy.", { retryable: true });
    const { failure } = runVerdict(facts(threw(busy)), describeError);
    expect(failure).toBe(busy);
  });
});
