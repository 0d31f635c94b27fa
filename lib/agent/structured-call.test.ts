import { describe, expect, it } from "vitest";
import { scriptedLLM } from "@/tests/support/scripted-llm";
import { StructuredCallError, structuredLlmCall } from "./structured-call";

const schema = {
  type: "object",
  properties: { tools: { type: "array", items: { type: "string" } } },
  required: ["tools"],
};
const base = {
  messages: [{ role: "user" as const, content: "pick" }],
  schema,
  name: "select_tools",
  description: "Select tools",
  language: "en" as const,
};

describe("structuredLlmCall degradation chain", () => {
  it("level 1: takes the arguments of the native tool call", async () => {
    const llm = scriptedLLM({ chat: [{ toolCalls: [{ name: "select_tools", arguments: { tools: ["a"] } }] }] });
    const result = await structuredLlmCall({ ...base, llm });
    expect(result).toMatchObject({ value: { tools: ["a"] }, level: "native", llmCalls: 1 });
    expect(llm.chatCalls[0]?.options.tools?.[0]).toMatchObject({ name: "select_tools", parameters: schema });
  });

  it("level 2: a reply without a tool call falls through to JSON mode with the schema as the output's", async () => {
    const llm = scriptedLLM({ chat: [{ content: "I would pick a" }, { content: '{"tools":["b"]}' }] });
    const result = await structuredLlmCall({ ...base, llm });
    expect(result).toMatchObject({ value: { tools: ["b"] }, level: "json_mode", llmCalls: 2 });
    expect(llm.chatCalls[1]?.options.output).toEqual({ type: "json", schema });
  });

  it("level 2 retries once with the reformat prompt after a parse failure", async () => {
    const llm = scriptedLLM({ chat: [{}, { content: "oops" }, { content: '{"tools":["c"]}' }] });
    const result = await structuredLlmCall({ ...base, llm });
    expect(result).toMatchObject({ value: { tools: ["c"] }, level: "json_mode", llmCalls: 3 });
    const retry = llm.chatCalls[2]?.messages ?? [];
    expect(retry.at(-2)).toEqual({ role: "assistant", content: "oops" });
    expect(retry.at(-1)?.content).toContain("could not be parsed as valid JSON");
  });

  it("level 3: plain text through extractJson, then the regex fallback", async () => {
    const llm = scriptedLLM({
      abilities: { tool_call: false, json_mode: false },
      chat: [{ content: "tools: d, e" }],
    });
    const result = await structuredLlmCall({
      ...base,
      llm,
      regexFallback: (text) => {
        const match = /tools: (.*)/.exec(text);
        return match ? { tools: (match[1] ?? "").split(", ") } : null;
      },
    });
    expect(result).toMatchObject({ value: { tools: ["d", "e"] }, level: "plain", llmCalls: 1 });
    expect(llm.chatCalls[0]?.options.output).toBeUndefined();
    expect(llm.chatCalls[0]?.options.tools).toBeUndefined();
  });

  it("skips levels the model's abilities do not allow", async () => {
    const llm = scriptedLLM({ abilities: { tool_call: false }, chat: [{ content: '{"tools":[]}' }] });
    expect((await structuredLlmCall({ ...base, llm })).level).toBe("json_mode");
  });

  it("parseFn rejecting a value drops to the next level", async () => {
    const llm = scriptedLLM({
      chat: [
        { toolCalls: [{ name: "select_tools", arguments: { tools: "not a list" } }] },
        { content: '{"tools":["ok"]}' },
      ],
    });
    const result = await structuredLlmCall({
      ...base,
      llm,
      parseFn: (raw) => (Array.isArray(raw.tools) ? (raw.tools as string[]) : null),
    });
    expect(result).toMatchObject({ value: ["ok"], level: "json_mode" });
  });

  it("worst case is five calls, then the default value, with usage summed", async () => {
    const llm = scriptedLLM({ chat: [{}, { content: "x" }, { content: "y" }, { content: "z" }, { content: "w" }] });
    const result = await structuredLlmCall({ ...base, llm, defaultValue: { tools: [] } });
    expect(result).toEqual({
      value: { tools: [] },
      raw: null,
      level: "default",
      llmCalls: 5,
      usage: { inputTokens: 50, outputTokens: 25, totalTokens: 75 },
    });
  });

  it("without a default, total failure is a typed error", async () => {
    const llm = scriptedLLM({ chat: [{}, { content: "x" }, { content: "y" }, { content: "z" }, { content: "w" }] });
    await expect(structuredLlmCall({ ...base, llm })).rejects.toBeInstanceOf(StructuredCallError);
  });

  it("a level whose call throws falls through; an abort does not", async () => {
    const llm = scriptedLLM({ chat: [new Error("does not support tools"), { content: '{"tools":["z"]}' }] });
    expect((await structuredLlmCall({ ...base, llm })).level).toBe("json_mode");
    const controller = new AbortController();
    controller.abort();
    await expect(
      structuredLlmCall({ ...base, llm: scriptedLLM({ chat: [{}] }), signal: controller.signal }),
    ).rejects.toMatchObject({ name: "AbortError" });
  });
});

describe('a structured call fits its model\'s context (docs/engine.md, "One context budget for every call")', () => {
  it("counts the schema it carries: a request that fits only without its schema is cut, at every level", async () => {
    // The schema takes ~1,000 tokens of a 2,048-token context; the request alone ~1,400 fits the budget.
    const wide = {
      type: "object",
      properties: { tools: { type: "array", items: { type: "string" }, description: "d ".repeat(2000) } },
      required: ["tools"],
    };
    const llm = scriptedLLM({ contextLength: 2048, chat: [{ content: "none" }, { content: '{"tools":["a"]}' }] });
    const cuts: number[] = [];
    const result = await structuredLlmCall({
      ...base,
      schema: wide,
      llm,
      messages: [{ role: "user", content: "pick ".repeat(1120) }],
      onCut: ({ cut }) => cuts.push(cut.content.length),
    });
    expect(llm.overContext).toEqual([]);
    expect(result).toMatchObject({ value: { tools: ["a"] }, level: "json_mode", llmCalls: 2 });
    expect(cuts).toHaveLength(1);
  });
});
