import type { CompactionEvent } from "@/lib/agent/context-guard";
import { DagAgent, type DagLimits } from "@/lib/agent/dag/dag-agent";
import type { ChatMessage, LLM } from "@/lib/llm/types";
import type { ModelHint, Plan, ScopedStep, StepProgress } from "@/lib/protocol/run-events";
import { interruptQueue, LIMITS } from "@/tests/support/agent-harness";
import { type FakeToolbox, fakeToolbox } from "@/tests/support/fake-toolbox";
import { type ScriptedChat, type ScriptedLLM, scriptedLLM } from "@/tests/support/scripted-llm";

/** Scripted models and a collecting DAG agent for the engine's tests. */

export const DAG_LIMITS: DagLimits = {
  maxConcurrency: 4,
  maxReplans: 1,
  maxSteps: 10,
  stepMaxIterations: 10,
  runMaxIterations: 100,
  dependencyChars: 4000,
};

export type RawStep = { id: string; task: string; dependencies?: string[]; tool_hint?: string; model_hint?: ModelHint };

/** A planner reply (level 1: the make_plan tool call). */
export const planReply = (steps: RawStep[]): ScriptedChat => ({
  toolCalls: [{ name: "make_plan", arguments: { steps: steps.map((step) => ({ dependencies: [], ...step })) } }],
});

export const analysisReply = (
  achieved: boolean,
  finalAnswer: string | null = null,
  reasoning = "ok",
): ScriptedChat => ({
  toolCalls: [
    { name: "judge_results", arguments: { achieved, confidence: 0.8, final_answer: finalAnswer, reasoning } },
  ],
});

/** The task a step agent was given, read from its question. */
export function taskOf(messages: ChatMessage[]): string {
  const question = messages.find((message) => message.role === "user")?.content ?? "";
  return /Your step: (.*)/.exec(question)?.[1] ?? "";
}

/** A step agent's model: every call answered by `handle` from the step's task (steps run concurrently). */
export function workerLLM(
  model: string,
  handle: (task: string, messages: ChatMessage[], signal?: AbortSignal) => ScriptedChat | Promise<ScriptedChat>,
): ScriptedLLM {
  return scriptedLLM({
    model,
    chat: Array.from(
      { length: 100 },
      () => (messages: ChatMessage[], options: { signal?: AbortSignal }) =>
        handle(taskOf(messages), messages, options.signal),
    ),
  });
}

/** Resolves when `signal` aborts, rejecting like an aborted request. */
export const untilAborted = (signal?: AbortSignal) =>
  new Promise<never>((_, reject) =>
    signal?.addEventListener("abort", () => reject(new DOMException("aborted", "AbortError")), { once: true }),
  );

export function dagHarness({
  planner,
  worker,
  roles = {},
  conversation = scriptedLLM({ model: "chat-model" }),
  limits = {},
  tools = fakeToolbox({ web_search: () => "results", scrape_url: () => "page" }),
  onStepProgress,
  onCompact,
}: {
  /** Plans and judges: the reasoning role's model. */
  planner: ScriptedLLM;
  /** Runs the steps whose hint has no model of its own. */
  worker: LLM;
  roles?: Partial<Record<"fast" | "reasoning", LLM>>;
  conversation?: ScriptedLLM;
  limits?: Partial<DagLimits>;
  tools?: FakeToolbox;
  onStepProgress?: (event: StepProgress) => void;
  onCompact?: (event: CompactionEvent & { stepId?: string }) => void;
}) {
  const steps: ScopedStep[] = [];
  const plans: Plan[] = [];
  const progress: StepProgress[] = [];
  const answer: string[] = [];
  const resolved: ModelHint[] = [];
  const interrupts = interruptQueue();
  const controller = new AbortController();
  const currentRoles = { reasoning: planner as LLM, ...roles };
  const agent = new DagAgent({
    llm: conversation,
    resolveLlm: async (hint) => {
      resolved.push(hint);
      if (hint === "reasoning") return currentRoles.reasoning;
      if (hint === "fast") return currentRoles.fast ?? worker;
      return worker;
    },
    tools,
    limits: LIMITS,
    dag: { ...DAG_LIMITS, ...limits },
    language: "en",
    interrupts,
    onStep: (step) => steps.push(step),
    onPlan: (plan) => plans.push(plan),
    onCompact,
    onStepProgress: (event) => {
      progress.push(event);
      onStepProgress?.(event);
    },
    onAnswer: (part) => {
      if (part.status === "delta") answer.push(part.content);
    },
  });
  const input = { system: "You are a test assistant.", history: [], question: "Compare A and B" };
  const run = () => agent.run(input, controller.signal);
  const statuses = () => progress.map((event) => `${event.stepId} ${event.status}`);
  return {
    agent,
    input,
    run,
    steps,
    plans,
    progress,
    statuses,
    answer,
    resolved,
    interrupts,
    controller,
    tools,
    currentRoles,
  };
}
