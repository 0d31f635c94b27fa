import { describe, expect, it } from "vitest";
import type { ChatMessage, ChatOptions } from "@/lib/llm/types";
import { prompt } from "@/lib/prompts";
import type { AgentStep, NoticeAbout } from "@/lib/protocol/run-events";
import { harness } from "@/tests/support/agent-harness";
import { analysisReply, dagHarness, planReply } from "@/tests/support/dag-harness";
import { fakeToolbox } from "@/tests/support/fake-toolbox";
import { type ScriptedChat, scriptedLLM } from "@/tests/support/scripted-llm";
import { noticeText } from "./notices";

/**
 * Every model call goes through one context budget (docs/engine.md, "One context budget for every call"):
 * both modes run against a scripted model that fails any call over its context length, with
 * everything made long — the history, the tool results, the steps' results, a second DAG round.
 */

const CONTEXT = 4096;
const long = (word: string, times: number) => `${word} `.repeat(times);
const isCompaction = (messages: ChatMessage[]) => messages[0]?.content === prompt("en", "compaction_system");

/** Fourteen tools (over the selection threshold), each answering with a long page. */
const manyTools = () =>
  fakeToolbox(
    Object.fromEntries(
      Array.from({ length: 14 }, (_, i) => [i === 0 ? "web_search" : `tool_${i}`, () => long("found", 1100)]),
    ),
  );

/** What a worker or loop model says: compaction summaries, a tool call for a fresh task, then a long answer. */
function answer(messages: ChatMessage[], options: ChatOptions): ScriptedChat {
  const tools = (options.tools ?? []).map((tool) => tool.name);
  if (isCompaction(messages)) return { content: "A summary of the earlier part." };
  if (tools.includes("select_tools")) {
    return { toolCalls: [{ name: "select_tools", arguments: { tools: ["web_search", "tool_1"] } }] };
  }
  const results = messages.filter((m) => m.role === "tool").length;
  if (results < 3) return { toolCalls: [{ name: "web_search", arguments: { query: `q${results}` } }] };
  return { content: long("finding", 2000) };
}

type RequestCut = { text: string; about: Extract<NoticeAbout, { what: "request" }> };

/** The notices of the run that say a structured call's request was cut, with their data. */
const requestCuts = (steps: AgentStep[]): RequestCut[] =>
  steps.flatMap((step) =>
    step.type === "notice" && step.about?.code === "cut" && step.about.what === "request"
      ? [{ text: step.text, about: step.about }]
      : [],
  );

const everyCall = (reply: (messages: ChatMessage[], options: ChatOptions) => ScriptedChat) =>
  Array.from({ length: 200 }, () => reply);

describe("every model call is guarded", () => {
  it("a ReAct run — tool selection, the loop, compaction and synthesis — never passes the model's context", async () => {
    const history: ChatMessage[] = Array.from({ length: 6 }, (_, i) => ({
      role: i % 2 === 0 ? "user" : "assistant",
      content: long("earlier", 900),
    }));
    const llm = scriptedLLM({ contextLength: CONTEXT, chat: everyCall(answer), stream: [["The answer."]] });
    const { agent, run } = harness(llm, manyTools());
    const input = { system: "s", history, question: long("question", 300) };
    const result = await run(input);
    const parts: string[] = [];
    for await (const part of agent.streamAnswer(result, input, new AbortController().signal)) {
      if (part.type === "text") parts.push(part.text);
    }
    expect(llm.overContext).toEqual([]);
    expect(llm.chatCalls.some((call) => isCompaction(call.messages))).toBe(true);
    expect(result.steps.length).toBeGreaterThanOrEqual(3);
    expect(parts.join("")).toBe("The answer.");
  });

  it("a DAG run of two rounds — planner, steps, dependency summaries, analyzer and synthesis — never passes the model's context", async () => {
    let analyses = 0;
    const planner = scriptedLLM({
      contextLength: CONTEXT,
      chat: everyCall((messages, options) => {
        const tools = (options.tools ?? []).map((tool) => tool.name);
        if (isCompaction(messages)) return { content: "A summary of the earlier part." };
        if (tools.includes("judge_results")) {
          analyses++;
          return analysisReply(analyses > 1, null, long("because", 400)) as ScriptedChat;
        }
        const round = analyses + 1;
        return planReply([
          { id: `a${round}`, task: `Find part ${round}` },
          { id: `b${round}`, task: `Build on part ${round}`, dependencies: [`a${round}`] },
        ]) as ScriptedChat;
      }),
    });
    const worker = scriptedLLM({
      contextLength: CONTEXT,
      chat: everyCall(answer),
    });
    const conversation = scriptedLLM({ contextLength: CONTEXT, chat: everyCall(answer), stream: [["The answer."]] });
    const { agent, input, run, plans, steps } = dagHarness({
      planner,
      worker,
      conversation,
      tools: manyTools(),
      limits: { dependencyChars: 12_000 },
    });
    const result = await run();
    for await (const _ of agent.streamAnswer(result, input, new AbortController().signal)) {
      // the answer streams; only the calls' sizes matter here
    }
    expect(plans.map((plan) => plan.round)).toEqual([1, 2]);
    expect(analyses).toBe(2);
    // The planner's request (the long history) and the analyzer's (every step's result) were too
    // long: each was cut, and the trail says so — as a sentence and as data the reader's language words.
    for (const call of ["planner", "analyzer"] as const) {
      const notice = requestCuts(steps).find((cut) => cut.about.call === call);
      expect(notice, call).toBeDefined();
      const { about, text } = notice as RequestCut;
      expect(about.kept).toBeLessThan(about.total);
      expect(text).toBe(noticeText("en", about));
      expect(text).toMatch(
        new RegExp(`^The ${call}'s request was cut to fit the model's context: [\\d,]+ of [\\d,]+ characters kept\\.$`),
      );
    }
    expect([...planner.overContext, ...worker.overContext, ...conversation.overContext]).toEqual([]);
  });
});

describe("a cut request is never silent", () => {
  it("a tool selection whose request had to be cut to fit the model says so in the trail (en and ja)", async () => {
    for (const language of ["en", "ja"] as const) {
      const llm = scriptedLLM({ contextLength: 2048, chat: everyCall(answer), stream: [["The answer."]] });
      const { steps, run } = harness(llm, manyTools(), { language });
      await run({ system: "s", history: [], question: long("question", 2000) });
      expect(llm.overContext).toEqual([]);
      const notice = requestCuts(steps).find((cut) => cut.about.call === "tool_selection");
      expect(notice, language).toBeDefined();
      const { about, text } = notice as RequestCut;
      expect(about).toMatchObject({ code: "cut", what: "request", call: "tool_selection", total: expect.any(Number) });
      expect(about.kept).toBeLessThan(about.total);
      expect(text).toBe(noticeText(language, about));
      expect(text).toContain(prompt(language, "tool_selection_input"));
    }
  });
});
