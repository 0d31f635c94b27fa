import { describe, expect, it } from "vitest";
import type { AnswerPart } from "@/lib/protocol/run-events";
import { harness, INPUT } from "@/tests/support/agent-harness";
import { fakeToolbox } from "@/tests/support/fake-toolbox";
import { MARKUP } from "@/tests/support/model-outputs";
import { type ScriptedChat, scriptedLLM } from "@/tests/support/scripted-llm";
import { classifyReplyStart } from "./answer-gate";

/** An agent on the fast path: what streams as the answer (resets as "|"), and the thinking. */
function fastPath(chat: ScriptedChat[], tools = fakeToolbox({ web_search: (args) => `results for ${args.query}` })) {
  const llm = scriptedLLM({ chat });
  let shown = "";
  let thinking = "";
  const { run, steps } = harness(llm, tools, {
    onAnswer: (part: AnswerPart) => {
      shown += part.status === "delta" ? part.content : part.status === "start" && shown ? "|" : "";
    },
    onThinking: (delta) => {
      thinking += delta.delta;
    },
  });
  return { llm, tools, run, steps, shown: () => shown, thinking: () => thinking };
}

describe("no raw markup reaches the answer", () => {
  it("gives a reply that is nothing but an unrunnable call an error observation listing the tools, and another try", async () => {
    const agent = fastPath([{ content: "<tool_call>search for it</tool_call>" }, { content: "Four." }]);
    const result = await agent.run();
    const retry = agent.llm.chatCalls[1]?.messages.at(-1);
    expect(retry).toMatchObject({ role: "user" });
    expect(retry?.content).toContain("web_search");
    expect(result.answer).toBe("Four.");
    expect(agent.shown()).toBe("Four.");
  });

  it("answers with a clear message, not the markup, when the model persists in unrunnable calls", async () => {
    const agent = fastPath([{ content: "<tool_call>search</tool_call>" }, { content: '<|python_tag|>{"x": 1}' }]);
    const result = await agent.run();
    expect(result.answer).toMatch(/could not be run/);
    expect(agent.shown()).toBe(result.answer);
    expect(agent.llm.chatCalls).toHaveLength(2);
  });

  it("removes special tokens from an answer, and never streams them", async () => {
    const agent = fastPath([{ chunks: ["The answer", " is 4.<|", "eot_id|>"] }]);
    const result = await agent.run();
    expect(result.answer).toBe("The answer is 4.");
    expect(agent.shown()).toBe("The answer is 4.");
  });

  it("stops showing prose once call markup appears in it, and withdraws it when the reply was a call", async () => {
    const agent = fastPath([
      { chunks: ["Let me check. ", "[TOOL_CALLS]web_search", '[ARGS]{"query": "x"}'] },
      { content: "Done." },
    ]);
    await agent.run();
    expect(agent.tools.calls).toEqual([{ name: "web_search", args: { query: "x" } }]);
    expect(MARKUP.test(agent.shown())).toBe(false);
  });

  it("moves <think>…</think> in content to the run's thinking, stored like message.thinking, never the answer", async () => {
    const agent = fastPath([{ chunks: ["<think>", "It is simple.", "</think>", "\n\nFour."] }]);
    const result = await agent.run();
    expect(result.answer).toBe("Four.");
    expect(agent.shown()).toBe("Four.");
    expect(agent.thinking()).toBe("It is simple.");
    expect(agent.steps).toContainEqual(expect.objectContaining({ type: "thinking", text: "It is simple." }));
    expect(result.messages.at(-1)).toMatchObject({ role: "assistant", content: "Four.", reasoning: "It is simple." });
  });

  it("runs a call written after a <think> block once, and not the one drafted inside it", async () => {
    const call = '<tool_call>{"name": "web_search", "arguments": {"query": "x"}}</tool_call>';
    const agent = fastPath([
      { content: `<think>Maybe ${call.replace("x", "draft")}</think>\n${call}` },
      { content: "Done." },
    ]);
    await agent.run();
    expect(agent.tools.calls).toEqual([{ name: "web_search", args: { query: "x" } }]);
  });

  it("runs an MCP tool called without its server__ prefix, and tells the model which tools exist for an unknown one", async () => {
    const tools = fakeToolbox({ files__read_file: (args) => `read ${args.path}` });
    const agent = fastPath(
      [
        {
          toolCalls: [
            { name: "Read-File", arguments: { path: "a" } },
            { name: "Weather", arguments: {} },
          ],
        },
        { content: "ok" },
      ],
      tools,
    );
    await agent.run();
    expect(tools.calls.map((call) => call.name)).toEqual(["files__read_file", "Weather"]);
  });
});

describe("the answer gate holds back a reply that may be a call or thinking", () => {
  const tools = ["get_weather"];

  it("holds back every marker of the known forms until it knows", () => {
    for (const start of [
      "<tool_call>",
      "<function=x>",
      "[TOOL_CALLS]",
      "[TOOL_REQUEST]",
      "<|python_tag|>",
      "<|start|>assistant",
      "<think>",
      "analysis",
      "commentary to=functions.x",
      "```tool_code\n",
      '[{"name"',
      "get_weather(",
    ]) {
      expect(classifyReplyStart(start, tools), start).toBe("hold");
    }
    for (const prefix of ["<tool_", "[TOOL_C", "<|python", "analy", "get_wea", "["]) {
      expect(classifyReplyStart(prefix, tools), prefix).toBe("wait");
    }
    for (const prose of ["Hello", "[1] says", "<b>bold</b>", "getting there"]) {
      expect(classifyReplyStart(prose, tools), prose).toBe("prose");
    }
  });
});

describe("a synthesised answer", () => {
  it("has thinking markup moved to thinking and special tokens removed", async () => {
    const llm = scriptedLLM({
      chat: [{ toolCalls: [{ name: "web_search", arguments: { query: "x" } }] }, { content: "draft" }],
      stream: [["<think>Weigh it.</think>", "The answer", " is 4.<|", "im_end|>"]],
    });
    const { agent, run } = harness(llm, fakeToolbox({ web_search: () => "r" }));
    const result = await run();
    let text = "";
    let reasoning = "";
    for await (const part of agent.streamAnswer(result, INPUT, new AbortController().signal)) {
      if (part.type === "text") text += part.text;
      if (part.type === "reasoning") reasoning += part.text;
    }
    expect(text).toBe("The answer is 4.");
    expect(reasoning).toBe("Weigh it.");
  });
});

describe("JSON mode", () => {
  it('runs {"tool_name", "tool_input"} WITH its arguments', async () => {
    const tools = fakeToolbox({ web_search: (args) => `results for ${args.query}` });
    const llm = scriptedLLM({
      chat: [
        { content: '{"tool_name": "web_search", "tool_input": {"query": "llamas"}}' },
        { content: '{"type": "final_answer", "answer": "ok"}' },
      ],
    });
    await harness(llm, tools, { toolCalling: "json" }).run();
    expect(tools.calls).toEqual([{ name: "web_search", args: { query: "llamas" } }]);
  });
});
