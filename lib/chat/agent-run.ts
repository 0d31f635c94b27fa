import "server-only";
import type { CompactionEvent } from "@/lib/agent/context-guard";
import { DagAgent, type DagLimits } from "@/lib/agent/dag/dag-agent";
import { ReActAgent } from "@/lib/agent/react-agent";
import type { AgentInput, AgentLimits, AgentMode, AgentResult } from "@/lib/agent/types";
import { UsageMeter } from "@/lib/agent/usage-meter";
import { databaseBusyError, isDatabaseBusy, writeWhenFree } from "@/lib/db/busy";
import type { Db } from "@/lib/db/client";
import { finishRun, savePartialAnswer } from "@/lib/db/runs";
import type { RunStatus } from "@/lib/db/schema";
import type { Config } from "@/lib/env-config";
import { AppError, isAbortError } from "@/lib/errors";
import { emptyUsage, type LLM, type Usage } from "@/lib/llm/types";
import type { PromptLanguage } from "@/lib/prompts";
import type { AnswerPart, Interrupt, ModelHint, RunEventData, RunFailure } from "@/lib/protocol/run-events";
import type { ToolRegistry } from "@/lib/tools/registry";
import { urlGuardForRun } from "@/lib/tools/url-leak-guard";
import type { LiveRun } from "./live-run";
import { suggestTitle } from "./title";
import { registryToolbox } from "./toolbox";

const PARTIAL_SAVE_MS = 1000;

export function agentLimits(config: Config): AgentLimits {
  return {
    maxIterations: config.MAX_ITERATIONS,
    maxToolRounds: config.MAX_TOOL_ROUNDS,
    maxToolContextChars: config.MAX_TOOL_CONTEXT_CHARS,
    maxToolResultChars: config.MAX_TOOL_RESULT_CHARS,
    toolSelectionThreshold: config.TOOL_SELECTION_THRESHOLD,
    toolSelectionMax: config.TOOL_SELECTION_MAX,
    synthesisTraceChars: config.SYNTHESIS_TRACE_CHARS,
    toolCallTextMaxChars: config.TOOL_CALL_TEXT_MAX_CHARS,
  };
}

export function dagLimits(config: Config): DagLimits {
  return {
    maxConcurrency: config.DAG_MAX_CONCURRENCY,
    maxReplans: config.DAG_MAX_REPLANS,
    maxSteps: config.DAG_MAX_STEPS,
    stepMaxIterations: config.DAG_STEP_MAX_ITERATIONS,
    runMaxIterations: config.DAG_RUN_MAX_ITERATIONS,
    dependencyChars: config.DAG_DEPENDENCY_CHARS,
  };
}

export interface AgentRunOptions {
  db: Db;
  live: LiveRun;
  /** The tool loop's model (the fast role when configured). */
  llm: LLM;
  /** The model that writes the answer: the conversation's. */
  synthesisLlm: LLM;
  /** The model that titles a first turn, with its own settings rather than the conversation's. */
  titleLlm: LLM;
  /** The run's tools, made once the run has started (MCP servers may take a moment to connect). */
  registry: (signal: AbortSignal) => Promise<ToolRegistry>;
  config: Config;
  language: PromptLanguage;
  /** The ReAct agent's way of calling tools, or DAG mode. */
  toolCalling: AgentMode | "dag";
  /** DAG mode: a plan step's model by its hint, resolved when the step starts. */
  resolveRoleModel: (hint: ModelHint) => Promise<LLM>;
  input: AgentInput;
  /** Where each drained interrupt is stored as a user message of the conversation, under its id. */
  onInterrupt: (interrupt: Interrupt) => void;
  /** Where a compaction summary of earlier turns is kept for the next turns. */
  onCompact: (event: CompactionEvent) => void;
  /** Set on a conversation's first turn: stores a title made from the first exchange. */
  onTitle?: (title: string) => Promise<string | null>;
  /**
   * The run is over and stored, just before its `done`: the conversation is free for its next turn
   * (the title may still be in the making), and the interrupts it never took are handed over.
   */
  onEnd?: (end: { status: Exclude<RunStatus, "running">; pending: Interrupt[] }) => void;
  /** The run's end could not be stored (not for a busy database): its row must still be marked ended. */
  onEndNotStored: (error: string) => Promise<void>;
}

function toAppError(error: unknown): AppError {
  if (error instanceof AppError) return error;
  if (isDatabaseBusy(error)) return databaseBusyError(error);
  console.error("[chat] run failed", error);
  return new AppError("internal", error instanceof Error ? error.message : String(error));
}

/**
 * One chat turn through the agent: the tool loop with its `step` events; a first reply without a
 * tool call is the answer, streamed as it is written (the fast path); otherwise the streamed
 * synthesis. An answer that fails mid-stream keeps what streamed (`interrupted`); a synthesis that
 * fails before any text shows the loop's draft (`fallback`). Then the stored assistant message and `done`,
 * and on a first turn the title, made after `done` and sent as a `title` event.
 * The stored answer is what the model wrote (empty if nothing); an error is an `error` event and
 * the run's `error`, never part of the answer. Stop ends it as `stopped`.
 */
export async function runAgentTurn(options: AgentRunOptions): Promise<void> {
  const { db, live, config, language, input } = options;
  // Every model call of the run is counted here, whoever makes it: `done.usage` is their sum.
  const meter = new UsageMeter();
  const llm = meter.wrap(options.llm);
  const synthesisLlm = meter.wrap(options.synthesisLlm);
  const resolveRoleModel = async (hint: ModelHint) => meter.wrap(await options.resolveRoleModel(hint));
  const startedAt = Date.now();
  let text = "";
  let answerStarted = false;
  let lastSave = Date.now();
  /** Every `answer` event of the turn, direct or synthesised: a `start` resets the text. */
  const onAnswer = (part: AnswerPart) => {
    if (part.status === "start") {
      text = "";
      live.answerText = text;
      answerStarted = true;
      live.emit("answer", part);
      return;
    }
    if (part.status !== "delta") return;
    text += part.content;
    live.answerText = text;
    live.emit("answer", part, { store: false });
    if (Date.now() - lastSave > PARTIAL_SAVE_MS) {
      lastSave = Date.now();
      const partial = text;
      // Only crash recovery reads it, but it is one of the run's writes: one that is lost fails the run.
      live.queueWrite(() => savePartialAnswer(db, { runId: live.runId, text: partial }), "the partial answer");
    }
  };
  // What the run holds privately, for the tools that fetch a URL the model chose.
  const urlGuard = urlGuardForRun(config, input);
  const interrupts = {
    drain: () => {
      const interrupts = live.interrupts.drain();
      for (const interrupt of interrupts) {
        urlGuard.addPrivate(interrupt.text, { trustUrls: true });
        options.onInterrupt(interrupt);
      }
      return interrupts;
    },
    get size() {
      return live.interrupts.size;
    },
  };
  const onCompact = (event: CompactionEvent & { stepId?: string }) => {
    live.emit("compact", {
      ...(event.stepId ? { stepId: event.stepId } : {}),
      originalMessages: event.originalMessages,
      keptMessages: event.keptMessages,
      tokensBefore: event.tokensBefore,
      tokensAfter: event.tokensAfter,
    });
    // A step agent starts without the conversation's turns: only the run's own compaction replaces them.
    if (!event.stepId) options.onCompact(event);
  };
  const common = {
    limits: agentLimits(config),
    language,
    interrupts,
    // `at` lets a page that re-attaches show how long a running tool has been going.
    onStep: (step: Parameters<LiveRun["emitStep"]>[0]) => live.emitStep(step, Date.now()),
    onThinking: (delta: RunEventData<"thinking">) => live.emit("thinking", delta, { store: false }),
    onCompact,
  };
  const agentWith = (registry: ToolRegistry) => {
    const tools = registryToolbox(
      registry,
      { conversationId: live.conversationId, language, urlGuard },
      config.MAX_TOOL_RESULT_CHARS,
    );
    return options.toolCalling === "dag"
      ? new DagAgent({
          ...common,
          tools,
          llm: synthesisLlm,
          resolveLlm: resolveRoleModel,
          dag: dagLimits(config),
          onAnswer,
          onPlan: (plan) => live.emit("plan", plan),
          onStepProgress: (progress) => live.emit("step_progress", progress),
        })
      : new ReActAgent({
          ...common,
          tools,
          llm,
          synthesisLlm,
          toolCalling: options.toolCalling,
          // The answer is the conversation model's: with a separate fast model for the loop, no fast path.
          ...(llm.model === synthesisLlm.model ? { onAnswer } : {}),
        });
  };

  let result: AgentResult | undefined;
  let usage: Usage = emptyUsage();
  let status: Exclude<RunStatus, "running"> = "complete";
  let failure: AppError | undefined;
  let fallback = false;

  try {
    const agent = agentWith(await options.registry(live.signal));
    result = await agent.run(input, live.signal);
    if (!result.direct) {
      onAnswer({ status: "start" });
      const outcome = await agent.synthesize(result, input, live.signal, {
        onText: (content) => onAnswer({ status: "delta", content }),
        onThinking: (delta) => live.emit("thinking", { iteration: 0, delta }, { store: false }),
        onThought: (thinking, durationMs) =>
          live.emitStep({ type: "thinking", iteration: 0, text: thinking, durationMs }, Date.now()),
      });
      if (outcome.ended !== "complete") {
        // What streamed stands (interrupted); only when nothing did, the loop's draft, labelled as such.
        failure = toAppError(outcome.failure);
        if (outcome.ended === "interrupted") status = "interrupted";
        else if (outcome.ended === "draft") fallback = true;
        else status = "error";
      }
    }
  } catch (error) {
    if (live.signal.aborted || isAbortError(error)) status = "stopped";
    else {
      // A direct answer that had begun to stream is kept as it was cut.
      status = text ? "interrupted" : "error";
      failure = toAppError(error);
    }
  }
  if (live.signal.aborted) status = "stopped";
  // The title is made after `done` by its own model: it is not part of the run's figures.
  usage = meter.total;
  // A shutdown already stored this run as interrupted.
  if (live.finalized) return;
  live.finalized = true;
  // A write of the run that failed (a busy database retried in vain, too) fails the run: a reload would not show all of it.
  const [lost] = await live.writesSettled();
  if (lost !== undefined && !failure) {
    status = "error";
    failure = new AppError(
      "internal",
      `Part of this answer could not be stored: ${lost instanceof Error ? lost.message : String(lost)}`,
    );
  }
  const errorEvent = (error: AppError): RunFailure => ({
    code: error.code,
    message: error.message,
    retryable: error.retryable,
    ...(error.details === undefined ? {} : { details: error.details }),
  });
  // While another process locks the database the run still ends for its client: its last events go
  // out live only, and its end is stored as soon as the database is free.
  live.stopBusyRetries();
  if (answerStarted) live.emit("answer", { status: "done" });
  if (failure) live.emit("error", errorEvent(failure));
  // The end is stored after every earlier write, so a reload after `done` replays all of it.
  await live.writesSettled();

  const iterations = result?.iterations ?? 0;
  const messageId = live.messageId;
  const end = () =>
    writeWhenFree(
      () =>
        finishRun(db, {
          runId: live.runId,
          messageId,
          status,
          iterations,
          inputTokens: usage.inputTokens,
          outputTokens: usage.outputTokens,
          generationMs: usage.generationMs,
          error: failure?.message,
          fallback,
          answer: text,
        }),
      `the end of run ${live.runId}`,
    );
  let stored: boolean;
  try {
    stored = await end();
  } catch (error) {
    // Its row would stay `running` and refuse the conversation's next turns: it is marked failed
    // instead, and the client gets why (no `done`: there is no message to announce).
    console.error(`[run] could not store the end of run ${live.runId}`, error);
    const reason = `This answer could not be saved: ${error instanceof Error ? error.message : String(error)}`;
    live.emit("error", errorEvent(new AppError("internal", reason)));
    await options.onEndNotStored(reason);
    return;
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
  const titlePending = Boolean(stored && options.onTitle && status === "complete" && text.trim());
  const pending = live.interrupts.close();
  options.onEnd?.({ status, pending });
  live.emit("done", {
    messageId,
    iterations,
    usage,
    elapsedMs: Date.now() - startedAt,
    ...(status === "stopped" ? { stopped: true } : {}),
    ...(status === "interrupted" ? { interrupted: true } : {}),
    ...(fallback ? { fallback: true } : {}),
    ...(result?.hitMaxIterations ? { iterationLimit: true } : {}),
    ...(pending.length > 0 ? { pendingInterrupts: pending } : {}),
    ...(titlePending ? { titlePending: true } : {}),
  });
  await live.writesSettled();
  if (!titlePending || !options.onTitle) return;
  // Off the turn's critical path: the answer is done and the conversation free; no thinking for a title.
  const suggested = await suggestTitle(options.titleLlm, { question: input.question, answer: text, language });
  let title: string | null = null;
  try {
    if (suggested) title = await options.onTitle(suggested);
  } catch (error) {
    if (!isDatabaseBusy(error)) throw error; // the placeholder title stays
  }
  if (title) live.emit("title", { title }, { store: false });
}
