import "server-only";
import type { CompactionEvent } from "@/lib/agent/context-guard";
import { DagAgent, type DagLimits } from "@/lib/agent/dag/dag-agent";
import { ReActAgent } from "@/lib/agent/react-agent";
import { ResearchAgent, type ResearchLimits, type ResearchStart } from "@/lib/agent/research/research-agent";
import type { AgentInput, AgentLimits, AgentMode, AgentResult } from "@/lib/agent/types";
import type { UsageMeter } from "@/lib/agent/usage-meter";
import type { Config } from "@/lib/env-config";
import type { LLM } from "@/lib/llm/types";
import type { PromptLanguage } from "@/lib/prompts";
import type { ModelHint, RunEventData } from "@/lib/protocol/run-events";
import type { ToolRegistry } from "@/lib/tools/registry";
import { urlGuardForRun } from "@/lib/tools/url-leak-guard";
import type { LiveRun } from "./live-run";
import type { RunHooks } from "./run-hooks";
import type { AgentOutcome } from "./run-status";
import { registryToolbox } from "./toolbox";

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

/** Research mode's limits: sections run as DAG steps, under RESEARCH_MAX_SOURCES and RESEARCH_MAX_MINUTES. */
export function researchLimits(config: Config): ResearchLimits {
  return {
    maxConcurrency: config.DAG_MAX_CONCURRENCY,
    stepMaxIterations: config.DAG_STEP_MAX_ITERATIONS,
    maxSources: config.RESEARCH_MAX_SOURCES,
    maxMs: config.RESEARCH_MAX_MINUTES * 60_000,
  };
}

/** A research turn that says nothing else proposes a brief and may ask first. */
const PROPOSE: ResearchStart = { propose: { ask: true, thenResearch: false } };

export interface TurnAgentOptions
  extends Pick<RunHooks, "registry" | "resolveRoleModel" | "onInterrupt" | "onCompact"> {
  live: LiveRun;
  /** The tool loop's model (the fast role when configured). */
  llm: LLM;
  /** The model that writes the answer: the conversation's. */
  synthesisLlm: LLM;
  config: Config;
  language: PromptLanguage;
  /** The ReAct agent's way of calling tools, DAG mode, or research mode. */
  toolCalling: AgentMode | "dag" | "research";
  /** Research mode: propose a brief, or research the one given. */
  research?: ResearchStart;
  /** Research mode: checks the written report's citations (the `verifying` phase). */
  verify?: (report: string, signal: AbortSignal, claimsEnd: number) => Promise<void>;
  input: AgentInput;
}

/** How the agent went: the loop's result once it returned (a synthesis may still have thrown after it). */
export interface TurnAgentRun {
  outcome: AgentOutcome;
  result?: AgentResult;
}

/**
 * The turn's agent, ReAct or DAG, run to its answer: the tool loop with its `step` events; a first
 * reply without a tool call is the answer, streamed as it is written (the fast path); otherwise the
 * streamed synthesis. A research run streams its brief or its report itself, with its `research_brief`
 * and `research` events. Every answer part goes to the run's answer stream (`live.answer`), and every
 * model call is counted by `meter`. What the agent throws is an outcome here, not an exception.
 */
export async function runTurnAgent(options: TurnAgentOptions, meter: UsageMeter): Promise<TurnAgentRun> {
  const { live, config, language, input } = options;
  const llm = meter.wrap(options.llm);
  const synthesisLlm = meter.wrap(options.synthesisLlm);
  const resolveRoleModel = async (hint: ModelHint) => meter.wrap(await options.resolveRoleModel(hint));
  const onAnswer = live.answer.push.bind(live.answer);
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
  const toolboxOf = (registry: ToolRegistry) =>
    registryToolbox(
      registry,
      { conversationId: live.conversationId, language, urlGuard },
      config.MAX_TOOL_RESULT_CHARS,
    );
  // The brief is the reasoning role's; sections gather on the loop's model; the report is the conversation model's.
  const researchAgent = (registry: ToolRegistry) =>
    new ResearchAgent({
      llm: synthesisLlm,
      resolveLlm: async (hint) => (hint ? resolveRoleModel(hint) : llm),
      tools: toolboxOf(registry),
      limits: common.limits,
      research: researchLimits(config),
      language,
      onStep: common.onStep,
      onThinking: common.onThinking,
      onCompact,
      onAnswer,
      onBrief: (brief) => live.emit("research_brief", brief),
      onProgress: (progress) => live.emit("research", progress),
      onResearch: (brief) => live.emit("research_start", { brief }),
      verify: options.verify,
    });
  const agentWith = (registry: ToolRegistry, toolCalling: AgentMode | "dag") => {
    const tools = toolboxOf(registry);
    return toolCalling === "dag"
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
          toolCalling,
          // The answer is the conversation model's: with a separate fast model for the loop, no fast path.
          ...(llm.model === synthesisLlm.model ? { onAnswer } : {}),
        });
  };

  let result: AgentResult | undefined;
  try {
    const registry = await options.registry(live.signal);
    const { toolCalling } = options;
    if (toolCalling === "research") {
      result = await researchAgent(registry).run(input, live.signal, options.research ?? PROPOSE);
      return { outcome: { ended: "answered" }, result };
    }
    const agent = agentWith(registry, toolCalling);
    result = await agent.run(input, live.signal);
    if (result.direct) return { outcome: { ended: "answered" }, result };
    onAnswer({ status: "start" });
    const synthesis = await agent.synthesize(result, input, live.signal, {
      onText: (content) => onAnswer({ status: "delta", content }),
      onThinking: (delta) => live.emit("thinking", { iteration: 0, delta }, { store: false }),
      onThought: (thinking, durationMs) =>
        live.emitStep({ type: "thinking", iteration: 0, text: thinking, durationMs }, Date.now()),
    });
    return { outcome: { ended: "answered", synthesis }, result };
  } catch (error) {
    return { outcome: { ended: "threw", error, answerStreamed: Boolean(live.answer.text) }, result };
  }
}
