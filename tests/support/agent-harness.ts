import { ReActAgent } from "@/lib/agent/react-agent";
import type { AgentInput, AgentLimits, AgentOptions } from "@/lib/agent/types";
import type { AgentStep, Interrupt } from "@/lib/protocol/run-events";
import type { FakeToolbox } from "./fake-toolbox";
import type { ScriptedLLM } from "./scripted-llm";

export const LIMITS: AgentLimits = {
  maxIterations: 50,
  maxToolRounds: 5,
  maxToolContextChars: 24000,
  maxToolResultChars: 6000,
  toolSelectionThreshold: 12,
  toolSelectionMax: 6,
  synthesisTraceChars: 2000,
  toolCallTextMaxChars: 200_000,
};

export const INPUT: AgentInput = { system: "You are a test assistant.", history: [], question: "What is new?" };

/** An agent over a scripted model and fake tools, collecting its step events. */
export function harness(
  llm: ScriptedLLM,
  tools: FakeToolbox,
  options: Partial<Omit<AgentOptions, "llm" | "tools" | "limits">> & { limits?: Partial<AgentLimits> } = {},
) {
  const steps: AgentStep[] = [];
  const agent = new ReActAgent({
    llm,
    tools,
    language: "en",
    ...options,
    limits: { ...LIMITS, ...options.limits },
    onStep: (step) => steps.push(step),
  });
  const run = (input: Partial<AgentInput> = {}) => agent.run({ ...INPUT, ...input }, new AbortController().signal);
  return { agent, steps, run };
}

/** A queue of interrupts that tests fill at chosen moments; ids are i1, i2, … in order. */
export function interruptQueue() {
  const pending: Interrupt[] = [];
  let count = 0;
  return {
    push: (...texts: string[]) => pending.push(...texts.map((text) => ({ id: `i${++count}`, text }))),
    drain: () => pending.splice(0),
    get size() {
      return pending.length;
    },
  };
}
