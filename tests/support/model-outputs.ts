import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { ReActAgent } from "@/lib/agent/react-agent";
import type { AnswerPart } from "@/lib/protocol/run-events";
import { LIMITS } from "./agent-harness";
import { fakeToolbox } from "./fake-toolbox";
import { scriptedLLM } from "./scripted-llm";

/**
 * The real model outputs kept in tests/fixtures/model-outputs (one JSON file per family, each
 * sample with its raw text, source and model), and their replay through the engine with a scripted
 * model: the sample is the loop's first reply, "Done." the next one.
 */

export interface ExpectedCall {
  name: string;
  arguments: Record<string, unknown>;
}

export interface ModelOutputSample {
  id: string;
  model: string;
  source: string;
  raw: string;
  /** Written after a source, not copied: no public raw sample was found. */
  constructed?: boolean;
  note?: string;
  /** Tools offered besides the expected calls' names. */
  offered?: string[];
  /** A structured call (Ollama's tool_calls) rather than text. */
  structured?: ExpectedCall[];
  expect: {
    calls?: ExpectedCall[];
    answer?: string;
    unrunnable?: boolean;
    /** The expected call's name is no offered tool: the model gets an error listing the tools. */
    unknownTool?: boolean;
    /** Some of the reply is thinking: it reaches the run's thinking, not the answer. */
    thinking?: boolean;
  };
}

export interface ModelOutputFamily {
  file: string;
  family: string;
  description: string;
  samples: ModelOutputSample[];
}

export const MODEL_OUTPUTS_DIR = path.join(process.cwd(), "tests/fixtures/model-outputs");

export function loadModelOutputs(): ModelOutputFamily[] {
  return readdirSync(MODEL_OUTPUTS_DIR)
    .filter((file) => file.endsWith(".json"))
    .sort()
    .map((file) => ({
      file,
      ...(JSON.parse(readFileSync(path.join(MODEL_OUTPUTS_DIR, file), "utf8")) as Omit<ModelOutputFamily, "file">),
    }));
}

/** The tools a sample's replay offers: every expected (known) name, plus its `offered` ones. */
export function offeredTools(sample: ModelOutputSample): string[] {
  const names = new Set(sample.offered ?? []);
  if (!sample.expect.unknownTool) for (const call of sample.expect.calls ?? []) names.add(call.name);
  if (names.size === 0) names.add("web_search");
  return [...names];
}

/** Markup that must never be part of an answer shown to the user. */
export const MARKUP =
  /<\|[a-z_]+\|>|\[TOOL_CALLS\]|\[ARGS\]|\[TOOL_REQUEST\]|\[END_TOOL_REQUEST\]|<\/?tool_call>|<\/?tool_code>|<function=|<parameter=|<\/?think>|to=functions\.|assistantfinal|```tool_code/;

export interface Replay {
  calls: { name: string; args: unknown }[];
  answer: string;
  /** Everything streamed as the answer, resets included. */
  shown: string;
  thinking: string;
  /** Milliseconds the engine spent on the sample's reply, model and tools excluded (an upper bound). */
  loopMs: number;
  /** What the model was told after the reply (an error observation, or the tool results). */
  toldModel: string[];
}

export async function replay(sample: ModelOutputSample): Promise<Replay> {
  const names = offeredTools(sample);
  const tools = fakeToolbox(Object.fromEntries(names.map((name) => [name, () => `result of ${name}`])));
  const first = sample.structured
    ? { toolCalls: sample.structured.map((call) => ({ name: call.name, arguments: call.arguments })) }
    : { content: sample.raw };
  const llm = scriptedLLM({ chat: [first, { content: "Done." }, { content: "Done." }] });
  const parts: AnswerPart[] = [];
  let thinking = "";
  const agent = new ReActAgent({
    llm,
    tools,
    language: "en",
    limits: LIMITS,
    onAnswer: (part) => parts.push(part),
    onThinking: (delta) => {
      thinking += delta.delta;
    },
  });
  const started = performance.now();
  const result = await agent.run({ system: "s", history: [], question: "q" }, new AbortController().signal);
  const loopMs = performance.now() - started;
  const second = llm.chatCalls[1]?.messages ?? [];
  const shown = parts.map((part) => (part.status === "delta" ? part.content : "")).join("");
  return {
    calls: tools.calls,
    answer: result.answer,
    shown,
    thinking,
    loopMs,
    toldModel: second.slice(-Math.max(1, tools.calls.length)).map((message) => message.content),
  };
}

/** Whether a replay ended as the sample intends; the reason when not. */
export function verdict(sample: ModelOutputSample, outcome: Replay): string | null {
  const { expect } = sample;
  if (MARKUP.test(outcome.shown) || MARKUP.test(outcome.answer))
    return `markup reached the answer: ${outcome.shown || outcome.answer}`;
  if (expect.thinking && !outcome.thinking.trim()) return "no thinking was moved out of the reply";
  if (expect.calls) {
    const ran = JSON.stringify(outcome.calls.map((call) => ({ name: call.name, arguments: call.args })));
    if (ran !== JSON.stringify(expect.calls)) return `ran ${ran}`;
    return null;
  }
  if (outcome.calls.length > 0) return `ran ${JSON.stringify(outcome.calls)}`;
  if (expect.unrunnable) return outcome.answer === "Done." ? null : `answer ${JSON.stringify(outcome.answer)}`;
  if (expect.answer !== undefined && outcome.answer !== expect.answer)
    return `answer ${JSON.stringify(outcome.answer)}`;
  return null;
}
