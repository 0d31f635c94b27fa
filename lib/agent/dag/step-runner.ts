import type { Usage } from "@/lib/llm/types";
import { emptyUsage, type LLM } from "@/lib/llm/types";
import { type PromptLanguage, prompt } from "@/lib/prompts";
import type { ModelHint, PlanStep, ScopedStep, StepProgress, ThinkingDelta } from "@/lib/protocol/run-events";
import { type CompactionEvent, ContextGuard, estimateTextTokens } from "../context-guard";
import { ReActAgent } from "../react-agent";
import type { SourceList } from "../sources";
import type { AgentLimits, AgentToolbox, InterruptSource, StepRecord } from "../types";
import { formatResults } from "./trace";

/**
 * One plan step as a fresh ReAct agent: its model resolved from the step's `model_hint` just
 * before it starts, its tools with `tool_hint` first, its query the goal, its task and its
 * dependencies' results (DAG_DEPENDENCY_CHARS in all: a result over its share is summarised by the
 * step's model with the `step_dependency` compaction hint, and cut if that fails). Its iterations are reserved from the
 * run's budget when it starts, and what it did not use is given back.
 */

export type StepRunStatus = "done" | "failed" | "skipped";

export interface StepRun {
  step: PlanStep;
  status: StepRunStatus;
  model: string;
  /** What the step found (done), or why it failed or was skipped. */
  result: string;
  iterations: number;
  usage: Usage;
  records: StepRecord[];
}

/** The run's iterations shared by its steps (DAG_RUN_MAX_ITERATIONS). */
export class IterationBudget {
  constructor(private remaining: number) {}

  get left(): number {
    return this.remaining;
  }

  take(wanted: number): number {
    const taken = Math.min(wanted, this.remaining);
    this.remaining -= taken;
    return taken;
  }

  giveBack(unused: number): void {
    this.remaining += Math.max(0, unused);
  }
}

/** The toolbox with the hinted tool first, so the step's model sees it first. */
export function preferTool(tools: AgentToolbox, hint: string | null): AgentToolbox {
  if (!hint) return tools;
  return {
    specs: () => {
      const specs = tools.specs();
      return [...specs.filter((spec) => spec.name === hint), ...specs.filter((spec) => spec.name !== hint)];
    },
    execute: (name, args, signal, call) => tools.execute(name, args, signal, call),
    select: (names) => preferTool(tools.select(names), hint),
  };
}

export interface StepContext {
  goal: string;
  /** Role, date and the conversation's files. */
  system: string;
  /** The user's own instructions for the conversation. */
  instructions?: string;
  tools: AgentToolbox;
  limits: AgentLimits;
  stepMaxIterations: number;
  dependencyChars: number;
  budget: IterationBudget;
  language: PromptLanguage;
  signal: AbortSignal;
  resolveLlm: (hint: ModelHint) => Promise<LLM>;
  interrupts?: InterruptSource;
  /** The run's numbering of sources, shared by its steps. */
  sources: SourceList;
  onStep?: (step: ScopedStep) => void;
  onThinking?: (delta: ThinkingDelta) => void;
  onCompact?: (event: CompactionEvent & { stepId: string }) => void;
  onProgress?: (progress: StepProgress) => void;
}

/** A dependency's result over `maxChars`, summarised for step `stepId`; unchanged when compaction fails. */
async function compactResult(
  stepId: string,
  run: StepRun,
  maxChars: number,
  llm: LLM,
  context: StepContext,
): Promise<StepRun> {
  if (run.result.length <= maxChars) return run;
  const replaced = [{ role: "assistant" as const, content: run.result }];
  const guard = new ContextGuard({ llm, language: context.language });
  const summary = await guard.summarise(replaced, "step_dependency", context.signal);
  if (!summary) return run;
  context.onCompact?.({
    stepId,
    originalMessages: 1,
    keptMessages: 1,
    tokensBefore: Math.ceil(estimateTextTokens(run.result)),
    tokensAfter: Math.ceil(estimateTextTokens(summary)),
    summary,
    replaced,
  });
  return { ...run, result: summary };
}

export async function stepQuery(
  step: PlanStep,
  dependencies: StepRun[],
  llm: LLM,
  context: StepContext,
): Promise<string> {
  const { language } = context;
  const share = Math.floor(context.dependencyChars / Math.max(1, dependencies.length));
  const compacted = await Promise.all(dependencies.map((run) => compactResult(step.id, run, share, llm, context)));
  const results = formatResults(compacted, language, share);
  return prompt(language, "dag_step_query", {
    goal: context.goal,
    task: step.task,
    dependencies: dependencies.length > 0 ? prompt(language, "dag_dependencies", { results }) : "",
  });
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

export async function runStep(step: PlanStep, dependencies: StepRun[], context: StepContext): Promise<StepRun> {
  const { signal, language } = context;
  const started = Date.now();
  const end = (run: Omit<StepRun, "step">): StepRun => {
    const at = Date.now();
    context.onProgress?.({
      stepId: step.id,
      status: run.status,
      model: run.model,
      result: run.result,
      at,
      durationMs: at - started,
    });
    return { step, ...run };
  };
  const failed = (model: string, result: string) =>
    end({ status: "failed", model, result, iterations: 0, usage: emptyUsage(), records: [] });

  const reserved = context.budget.take(context.stepMaxIterations);
  if (reserved === 0) return failed("", prompt(language, "dag_budget_reached"));
  let llm: LLM;
  try {
    llm = await context.resolveLlm(step.model_hint);
  } catch (error) {
    if (signal.aborted) throw error;
    context.budget.giveBack(reserved);
    return failed("", errorText(error));
  }
  context.onProgress?.({ stepId: step.id, status: "running", model: llm.model, at: started });
  const agent = new ReActAgent({
    llm,
    tools: preferTool(context.tools, step.tool_hint),
    limits: { ...context.limits, maxIterations: reserved },
    language,
    interrupts: context.interrupts,
    sources: context.sources,
    onStep: (event) => context.onStep?.({ ...event, stepId: step.id }),
    onThinking: (delta) => context.onThinking?.({ ...delta, stepId: step.id }),
    onCompact: (event) => context.onCompact?.({ ...event, stepId: step.id }),
  });
  try {
    const result = await agent.run(
      {
        system: context.system,
        instructions: context.instructions,
        history: [],
        question: await stepQuery(step, dependencies, llm, context),
      },
      signal,
    );
    context.budget.giveBack(reserved - result.iterations);
    return end({
      status: "done",
      model: llm.model,
      result: result.answer.trim(),
      iterations: result.iterations,
      usage: result.usage,
      records: result.steps,
    });
  } catch (error) {
    if (signal.aborted) throw error;
    return failed(llm.model, errorText(error));
  }
}
