import { describe, expect, it } from "vitest";
import { harness, interruptQueue } from "@/tests/support/agent-harness";
import { fakeToolbox } from "@/tests/support/fake-toolbox";
import { scriptedLLM } from "@/tests/support/scripted-llm";
import { PARSE_FAILURE, parseAction } from "./json-mode";

const noTools = { tool_call: false };
const call = (tool: string, args: Record<string, unknown>) =>
  JSON.stringify({ type: "tool_call", reasoning: `use ${tool}`, tool_name: tool, tool_args: args });
const final = (answer: string) => JSON.stringify({ type: "final_answer", reasoning: "done", answer });

describe("JSON mode", () => {
  it("is used when the model cannot call tools, and when the run was set to JSON mode", () => {
    expect(harness(scriptedLLM({ abilities: noTools }), fakeToolbox({})).agent.mode).toBe("json");
    expect(harness(scriptedLLM(), fakeToolbox({}), { toolCalling: "json" }).agent.mode).toBe("json");
    expect(harness(scriptedLLM(), fakeToolbox({})).agent.mode).toBe("native");
  });

  it("puts the tools and the action schema in the system prompt and asks for JSON output", async () => {
    const llm = scriptedLLM({ abilities: noTools, chat: [{ content: final("hi") }] });
    await harness(llm, fakeToolbox({ web_search: () => "" })).run();
    const system = llm.chatCalls[0]?.messages[0]?.content ?? "";
    expect(system).toContain("- web_search: The web_search tool");
    expect(system).toContain('"type":"tool_call"');
    expect(system).toContain('"type":"final_answer"');
    expect(llm.chatCalls[0]?.options).toMatchObject({ output: { type: "json" } });
    expect(llm.chatCalls[0]?.options.tools).toBeUndefined();
  });

  it("runs a tool from JSON wrapped in prose and fences and appends the observation as a user message", async () => {
    const llm = scriptedLLM({
      abilities: noTools,
      chat: [
        { content: `Sure!\n\`\`\`json\n${call("web_search", { query: "ollama" })}\n\`\`\`` },
        { content: final("It is a runtime.") },
      ],
    });
    const tools = fakeToolbox({ web_search: (args) => `results for ${args.query}` });
    const result = await harness(llm, tools).run();
    expect(tools.calls).toEqual([{ name: "web_search", args: { query: "ollama" } }]);
    expect(llm.chatCalls[1]?.messages.at(-1)).toEqual({ role: "user", content: "Observation: results for ollama" });
    expect(result.answer).toBe("It is a runtime.");
  });

  it("prefixes failed tool results with Error:", async () => {
    const llm = scriptedLLM({ abilities: noTools, chat: [{ content: call("ghost", {}) }, { content: final("ok") }] });
    await harness(llm, fakeToolbox({})).run();
    expect(llm.chatCalls[1]?.messages.at(-1)?.content).toBe('Observation: Error: {"error":"Unknown tool: ghost"}');
  });

  it("after a parse failure appends the raw reply and a reformat request, counted as an iteration, then recovers", async () => {
    const llm = scriptedLLM({
      abilities: noTools,
      chat: [{ content: "I think the answer is 4" }, { content: final("4") }],
    });
    const result = await harness(llm, fakeToolbox({})).run();
    expect(llm.chatCalls[1]?.messages.slice(-2)).toEqual([
      { role: "assistant", content: "I think the answer is 4" },
      { role: "user", content: expect.stringContaining("could not be parsed as valid JSON") },
    ]);
    expect(result).toMatchObject({ answer: "4", iterations: 2 });
  });

  it("after a second parse failure in a row the raw content becomes the answer", async () => {
    const llm = scriptedLLM({ abilities: noTools, chat: [{ content: "nope" }, { content: "Plain answer: 4" }] });
    const result = await harness(llm, fakeToolbox({})).run();
    expect(result).toMatchObject({ answer: "Plain answer: 4", iterations: 2 });
  });

  it("a parse failure retry counts against MAX_ITERATIONS", async () => {
    const llm = scriptedLLM({ abilities: noTools, chat: [{ content: call("a", {}) }, { content: "garbage" }] });
    const result = await harness(llm, fakeToolbox({ a: () => "r" }), { limits: { maxIterations: 2 } }).run();
    expect(result.hitMaxIterations).toBe(true);
  });

  it("uses the thinking text when the JSON reasoning is empty", () => {
    expect(parseAction('{"type":"final_answer","reasoning":"","answer":"x"}', "deep thought")).toEqual({
      type: "final_answer",
      reasoning: "deep thought",
      answer: "x",
    });
    expect(parseAction("not json", "t").reasoning).toBe(PARSE_FAILURE);
  });

  it("accepts common variants: arguments as a JSON string, missing type", () => {
    expect(parseAction('{"tool_name":"a","tool_args":"{\\"q\\":1}"}', "")).toMatchObject({
      type: "tool_call",
      toolName: "a",
      toolArgs: { q: 1 },
    });
    expect(parseAction('{"answer":"y"}', "")).toMatchObject({ type: "final_answer", answer: "y" });
  });

  it("shows the action's reasoning as a thinking step", async () => {
    const llm = scriptedLLM({ abilities: noTools, chat: [{ content: final("ok") }] });
    const { run, steps } = harness(llm, fakeToolbox({}));
    await run();
    expect(steps).toContainEqual({ type: "thinking", iteration: 1, text: "done" });
  });
});

describe("tool budget in JSON mode", () => {
  it("withdraws the tools after the budget as native mode does: a model that keeps calling cannot burn MAX_ITERATIONS", async () => {
    const llm = scriptedLLM({ abilities: noTools });
    llm.queueChat(
      ...Array.from(
        { length: 20 },
        () => (_messages: unknown, options: { output?: unknown }) =>
          options.output ? { content: call("a", { query: "more" }) } : { content: "What I found." },
      ),
    );
    const tools = fakeToolbox({ a: () => "r" });
    const result = await harness(llm, tools, { limits: { maxToolRounds: 1, maxIterations: 20 } }).run();
    // Round 1 runs and exhausts the budget; the next call is refused; then the tools are gone.
    expect(tools.calls).toHaveLength(1);
    expect(result.hitMaxIterations).toBe(false);
    expect(result).toMatchObject({ answer: "What I found.", iterations: 3 });
    const last = llm.chatCalls.at(-1);
    expect(last?.options.output).toBeUndefined();
    expect(last?.messages.at(-1)?.content).toContain("Tools are no longer available for this answer.");
  });
});

describe("interrupts in JSON mode", () => {
  it("drains after each assistant message, before checking for final_answer, suppressing it", async () => {
    const queue = interruptQueue();
    const llm = scriptedLLM({
      abilities: noTools,
      chat: [
        () => {
          queue.push("in French please");
          return { content: final("Hello") };
        },
        { content: final("Bonjour") },
      ],
    });
    const result = await harness(llm, fakeToolbox({}), { interrupts: queue }).run();
    expect(result.answer).toBe("Bonjour");
    expect(llm.chatCalls[1]?.messages.slice(-2)).toEqual([
      { role: "assistant", content: final("Hello") },
      { role: "user", content: "[USER INTERRUPT]: in French please\nAcknowledge and adjust if needed." },
    ]);
  });

  it("drains after a tool-call reply too: the interrupt comes before that tool's observation", async () => {
    const queue = interruptQueue();
    const tools = fakeToolbox({ a: () => "r" });
    const llm = scriptedLLM({
      abilities: noTools,
      chat: [
        () => {
          queue.push("stop searching");
          return { content: call("a", {}) };
        },
        { content: final("ok") },
      ],
    });
    await harness(llm, tools, { interrupts: queue }).run();
    expect(tools.calls).toHaveLength(1);
    expect(llm.chatCalls[1]?.messages.slice(-3).map((m) => m.content)).toEqual([
      call("a", {}),
      "[USER INTERRUPT]: stop searching\nAcknowledge and adjust if needed.",
      "Observation: r",
    ]);
  });
});
