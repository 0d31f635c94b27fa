import { describe, expect, it } from "vitest";
import type { Flavor } from "@/tests/fake-openai/server";
import { setupFakeOpenAI } from "@/tests/fake-openai/test-helpers";
import type { ChatMessage, LLM, ReplyPart } from "../types";
import { createOpenAICompatibleLLM, type OpenAICompatibleLLMOptions } from "./openai-llm";

const ALL = { tool_call: true, json_mode: true, thinking: true, vision: false };
const question: ChatMessage[] = [{ role: "user", content: "hello there" }];
const webSearch = {
  name: "web_search",
  description: "Search the web",
  parameters: { type: "object", properties: { query: { type: "string" } }, required: ["query"] },
};

async function collect(stream: AsyncIterable<ReplyPart>): Promise<ReplyPart[]> {
  const parts: ReplyPart[] = [];
  for await (const part of stream) parts.push(part);
  return parts;
}

const textOf = (parts: ReplyPart[], type: "text" | "reasoning") =>
  parts.map((part) => (part.type === type ? part.text : "")).join("");

describe.each<Flavor>(["llama-server", "vllm"])("the OpenAI-compatible LLM on %s", (flavor) => {
  const fake = setupFakeOpenAI({ flavor });
  const model = flavor === "vllm" ? "Qwen/Qwen3-8B" : "Qwen3-8B-Q4_K_M.gguf";
  const llmOn = (options: Partial<OpenAICompatibleLLMOptions> = {}): LLM =>
    createOpenAICompatibleLLM({
      server: { label: "gpu", baseUrl: `${fake().url}/v1` },
      model,
      abilities: ALL,
      contextLength: 8192,
      ...options,
    });
  const lastBody = () => fake().chatRequests().at(-1)?.body;

  it("is named <model>@<label> and streams the text in the pieces the server sent", async () => {
    fake().script({ chunks: ["Hel", "lo ", "world"] });
    const llm = llmOn();
    const parts = await collect(llm.streamReply(question));
    expect(llm.model).toBe(`${model}@gpu`);
    expect(parts.filter((part) => part.type === "text").map((part) => part.type === "text" && part.text)).toEqual([
      "Hel",
      "lo ",
      "world",
    ]);
    expect(parts.at(-1)).toMatchObject({ type: "finish", finishReason: "stop" });
    expect(lastBody()).toMatchObject({ model, stream: true, messages: [{ role: "user", content: "hello there" }] });
  });

  it("streams the server's reasoning field as reasoning, apart from the text", async () => {
    fake().script({ reasoning: "Let me think.", content: "42" });
    const parts = await collect(llmOn().streamReply(question));
    expect(textOf(parts, "reasoning")).toBe("Let me think.");
    expect(textOf(parts, "text")).toBe("42");
  });

  it("hands back a tool call whose arguments arrived split across chunks as one whole call, to run ourselves", async () => {
    const query = "the weather in Oslo tomorrow, in detail";
    fake().script({ toolCalls: [{ id: "call_1", name: "web_search", arguments: { query } }] });
    const parts = await collect(llmOn().streamReply(question, { tools: [webSearch] }));
    const calls = parts.filter((part) => part.type === "tool-call");
    expect(calls).toEqual([{ type: "tool-call", call: { id: "call_1", name: "web_search", arguments: { query } } }]);
    expect(parts.at(-1)).toMatchObject({ type: "finish", finishReason: "tool-calls" });
    expect(lastBody().tools).toEqual([{ type: "function", function: webSearch }]);
  });

  it("returns a whole reply's text, reasoning, tool calls and usage from chat", async () => {
    fake().script({
      reasoning: "Search first.",
      toolCalls: [{ id: "call_2", name: "web_search", arguments: { query: "x" } }],
      promptTokens: 120,
      completionTokens: 30,
    });
    const result = await llmOn().chat(question, { tools: [webSearch] });
    expect(result).toMatchObject({
      reasoning: "Search first.",
      toolCalls: [{ id: "call_2", name: "web_search", arguments: { query: "x" } }],
      usage: { inputTokens: 120, outputTokens: 30, totalTokens: 150 },
    });
    expect(lastBody().stream).toBeFalsy();
  });

  it("reports the server's token counts of a streamed reply (asking for the usage chunk)", async () => {
    fake().script({ content: "Four.", promptTokens: 77, completionTokens: 3 });
    const parts = await collect(llmOn().streamReply(question));
    expect(parts.at(-1)).toMatchObject({
      type: "finish",
      usage: { inputTokens: 77, outputTokens: 3, totalTokens: 80 },
    });
    expect(lastBody().stream_options).toEqual({ include_usage: true });
  });

  it("sends an image as a data URL of its own type beside the text", async () => {
    const png = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==";
    await llmOn().chat([{ role: "user", content: "what is this?", images: [png] }]);
    expect(lastBody().messages[0].content).toEqual([
      { type: "text", text: "what is this?" },
      { type: "image_url", image_url: { url: `data:image/png;base64,${png}` } },
    ]);
  });

  it("asks for a JSON object as response_format json_object, and for a schema as json_schema, handing back the text", async () => {
    const schema = { type: "object", properties: { tools: { type: "array", items: { type: "string" } } } };
    fake().script({ content: '{"type":"final_answer","answer":"ok"}' }, { content: '{"tools":["a"]}' });
    const plain = await llmOn().chat(question, { output: { type: "json" } });
    expect(lastBody().response_format).toEqual({ type: "json_object" });
    expect(plain.content).toBe('{"type":"final_answer","answer":"ok"}');
    const shaped = await collect(llmOn().streamReply(question, { output: { type: "json", schema } }));
    expect(lastBody().response_format).toMatchObject({ type: "json_schema", json_schema: { schema, strict: false } });
    expect(textOf(shaped, "text")).toBe('{"tools":["a"]}');
    await llmOn().chat(question);
    expect(lastBody()).not.toHaveProperty("response_format");
  });

  it("sends no response_format to a model without JSON mode (the server would refuse it), only the prompt", async () => {
    const llm = llmOn({ abilities: { ...ALL, json_mode: false } });
    fake().script({ content: '{"type":"final_answer","answer":"ok"}' });
    expect((await llm.chat(question, { output: { type: "json" } })).content).toBe(
      '{"type":"final_answer","answer":"ok"}',
    );
    expect(lastBody()).not.toHaveProperty("response_format");
  });

  it("asks the chat template not to think when thinking is off (the title, a chat's setting), and says nothing otherwise", async () => {
    await llmOn().chat(question, { thinking: false });
    expect(lastBody().chat_template_kwargs).toEqual({ enable_thinking: false });
    await llmOn({ think: false }).chat(question);
    expect(lastBody().chat_template_kwargs).toEqual({ enable_thinking: false });
    await llmOn().chat(question);
    expect(lastBody()).not.toHaveProperty("chat_template_kwargs");
  });

  it("sends a chat's sampling settings, a call's own temperature winning", async () => {
    const llm = llmOn({ sampling: { temperature: 1.3, top_p: 0.5, seed: 7 } });
    await collect(llm.streamReply(question));
    expect(lastBody()).toMatchObject({ temperature: 1.3, top_p: 0.5, seed: 7 });
    await llm.chat(question, { temperature: 0.2 });
    expect(lastBody()).toMatchObject({ temperature: 0.2, top_p: 0.5, seed: 7 });
  });

  it("sends tool results paired with their calls, and a call whose result is gone without it", async () => {
    const history: ChatMessage[] = [
      { role: "user", content: "find it" },
      {
        role: "assistant",
        content: "",
        toolCalls: [
          { id: "call_a", name: "web_search", arguments: { query: "a" } },
          { id: "call_cut", name: "web_search", arguments: { query: "b" } },
        ],
      },
      { role: "tool", content: "result a", toolCallId: "call_a", toolName: "web_search" },
      { role: "user", content: "and now?" },
    ];
    await llmOn().chat(history, { tools: [webSearch] });
    const [, assistant, tool] = lastBody().messages;
    expect(assistant.tool_calls).toEqual([
      { id: "call_a", type: "function", function: { name: "web_search", arguments: '{"query":"a"}' } },
    ]);
    expect(tool).toMatchObject({ role: "tool", tool_call_id: "call_a", content: "result a" });
  });

  it("stops the server's generation when the caller aborts: the request is closed and the call ends as an abort", async () => {
    fake().script({ hang: true });
    const controller = new AbortController();
    const pending = collect(llmOn().streamReply(question, { signal: controller.signal }));
    await expect.poll(() => fake().chatRequests().length).toBe(1);
    controller.abort();
    await expect(pending).rejects.toMatchObject({ name: "AbortError" });
    await expect.poll(() => fake().chatRequests()[0]?.aborted).toBe(true);
  });
});

describe("generation time", () => {
  const fake = setupFakeOpenAI({ flavor: "llama-server" });

  it("takes llama-server's timings.predicted_ms as the reply's generation time, streamed and whole", async () => {
    const llm = createOpenAICompatibleLLM({
      server: { label: "llama", baseUrl: `${fake().url}/v1` },
      model: "Qwen3-8B-Q4_K_M.gguf",
      abilities: ALL,
      contextLength: 8192,
    });
    // The fake's timings: 25 ms per output token.
    fake().script({ content: "Four.", completionTokens: 4 }, { content: "Five.", completionTokens: 2 });
    const parts = await collect(llm.streamReply(question));
    expect(parts.at(-1)).toMatchObject({ type: "finish", usage: { outputTokens: 4, generationMs: 100 } });
    expect((await llm.chat(question)).usage).toMatchObject({ outputTokens: 2, generationMs: 50 });
  });
});
