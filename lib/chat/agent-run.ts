import "server-only";
import type { ResearchStart } from "@/lib/agent/research/research-agent";
import type { AgentInput, AgentMode } from "@/lib/agent/types";
import { UsageMeter } from "@/lib/agent/usage-meter";
import { databaseBusyError, isDatabaseBusy } from "@/lib/db/busy";
import type { Db } from "@/lib/db/client";
import type { Config } from "@/lib/env-config";
import { AppError } from "@/lib/errors";
import type { LLM } from "@/lib/llm/types";
import type { PromptLanguage } from "@/lib/prompts";
import type { LiveRun } from "./live-run";
import { researchVerification } from "./research-citations";
import { storeRunEnd } from "./run-end";
import type { RunHooks } from "./run-hooks";
import { runVerdict } from "./run-status";
import { titleFirstTurn } from "./run-title";
import { runTurnAgent } from "./turn-agent";

export interface AgentRunOptions extends RunHooks {
  db: Db;
  live: LiveRun;
  /** The tool loop's model (the fast role when configured). */
  llm: LLM;
  /** The model that writes the answer: the conversation's. */
  synthesisLlm: LLM;
  /** The model that titles a first turn, with its own settings rather than the conversation's. */
  titleLlm: LLM;
  config: Config;
  language: PromptLanguage;
  /** The ReAct agent's way of calling tools, DAG mode, or research mode. */
  toolCalling: AgentMode | "dag" | "research";
  /** Research mode: propose a brief, or research the one given. */
  research?: ResearchStart;
  input: AgentInput;
}

function toAppError(error: unknown): AppError {
  if (error instanceof AppError) return error;
  if (isDatabaseBusy(error)) return databaseBusyError(error);
  console.error("[chat] run failed", error);
  return new AppError("internal", error instanceof Error ? error.message : String(error));
}

/**
 * One chat turn through the agent, in four parts with one owner each (docs/architecture.md, "One
 * turn"): the agent streams its answer into the run's answer stream (`runTurnAgent`, `live.answer`,
 * which saves the text so far); whoever ends the run first claims it (`live.claimEnd`: a shutdown
 * or an account's removal may have); its status comes from how it went (`runVerdict`, pure); its
 * end is stored and `done` sent (`storeRunEnd`); a first turn is then titled (`titleFirstTurn`).
 * The stored answer is what the model wrote (empty if nothing); an error is an `error` event and
 * the run's `error`, never part of the answer. Stop ends it as `stopped`.
 */
export async function runAgentTurn(options: AgentRunOptions): Promise<void> {
  const { live } = options;
  // Every model call of the run is counted here, whoever makes it: `done.usage` is their sum.
  const meter = new UsageMeter();
  const startedAt = Date.now();
  // A research run verifies its report on the fast role's model (the loop's), counted with the run.
  const verification =
    options.toolCalling === "research"
      ? researchVerification(options.db, {
          live,
          verifierLlm: meter.wrap(options.llm),
          config: options.config,
          language: options.language,
        })
      : undefined;
  const { outcome, result } = await runTurnAgent({ ...options, verify: verification?.verify }, meter);
  const aborted = live.signal.aborted;
  // The title is made after `done` by its own model: it is not part of the run's figures.
  const usage = meter.total;
  // A shutdown or an account's removal may have ended the run first, and stored it.
  if (!live.claimEnd()) return;
  // A write of the run that failed (a busy database retried in vain, too) fails the run.
  const [lostWrite] = await live.writesSettled();
  const verdict = runVerdict(
    { outcome, aborted, hitMaxIterations: result?.hitMaxIterations ?? false, lostWrite },
    toAppError,
  );
  const titlePending = await storeRunEnd({
    db: options.db,
    live,
    verdict,
    iterations: result?.iterations ?? 0,
    usage,
    startedAt,
    checked: verification?.checked,
    titled: Boolean(options.onTitle),
    onEnd: options.onEnd,
    onEndNotStored: options.onEndNotStored,
  });
  if (!titlePending || !options.onTitle) return;
  await titleFirstTurn(live, {
    titleLlm: options.titleLlm,
    question: options.input.question,
    language: options.language,
    onTitle: options.onTitle,
  });
}
