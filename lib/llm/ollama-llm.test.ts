import { afterEach, describe, expect, it, vi } from "vitest";
import { AppError } from "@/lib/errors";
import { setupFakeOllama } from "@/tests/fake-ollama/test-helpers";
import { OllamaApi, VERSION_FRESH_MS } from "./ollama-api";
import { createOllamaLLM } from "./ollama-llm";
import type { ChatMessage, LLM, ReplyPart, StreamPart } from "./types";

const fake = setupFakeOllama();

async function llmFor(model: string, numCtx = 16384): Promise<LLM> {
  const info = await new OllamaApi(fake().url).describe(model);
  return createOllamaLLM({
    baseUrl: fake().url,
    model,
    abilities: info.abilities,
    modelContextLength: info.contextLength,
    numCtx,
  });
}

const question: ChatMessage[] = [{ role: "user", content: "hello there" }];

async function collect<T extends StreamPart | ReplyPart>(stream: AsyncIterable<T>): Promise<T[]> {
  const parts: T[] = [];
  for await (const part of stream) parts.push(part);
  return parts;
}

const lastChatBody = () => fake().chatRequests().at(-1)?.body;

describe("sampling settings and num_ctx go in options", () => {
  it("sends num_ctx and temperature in options and nothing Ollama ignores at the top level", async () => {
    const llm = await llmFor("llama3.2");
    await llm.chat(question, { temperature: 0.3 });
    const body = lastChatBody();
    expect(body.options).toMatchObject({ num_ctx: 16384, temperature: 0.3 });
    for (const ignored of ["temperature", "top_p", "max_output_tokens", "tool_choice"]) {
      expect(body).not.toHaveProperty(ignored);
    }
  });

  it("sends a chat's own sampling settings in options on every call, and a call's own temperature wins", async () => {
    const info = await new OllamaApi(fake().url).describe("llama3.2");
    const llm = createOllamaLLM({
      baseUrl: fake().url,
      model: "llama3.2",
      abilities: info.abilities,
      modelContextLength: info.contextLength,
      numCtx: 4096,
      sampling: { temperature: 1.3, top_p: 0.5, seed: 7 },
    });
    await collect(llm.streamReply(question));
    expect(lastChatBody().options).toEqual({ num_ctx: 4096, temperature: 1.3, top_p: 0.5, seed: 7 });
    await llm.chat(question, { temperature: 0.2 });
    expect(lastChatBody().options).toEqual({ num_ctx: 4096, temperature: 0.2, top_p: 0.5, seed: 7 });
  });

  it("caps num_ctx at the model's own context length", async () => {
    const llm = await llmFor("llava:7b", 16384);
    expect(llm.contextLength).toBe(4096);
    await collect(llm.streamChat(question));
    expect(lastChatBody().options.num_ctx).toBe(4096);
  });
});

describe("Ollama's own error text is surfaced", () => {
  it("says the model does not support tools instead of 'Bad Request'", async () => {
    const info = await new OllamaApi(fake().url).describe("gemma:2b");
    // Pretend the abilities were wrong, so the request reaches Ollama with tools.
    const llm = createOllamaLLM({
      baseUrl: fake().url,
      model: "gemma:2b",
      abilities: { ...info.abilities, tool_call: true },
      modelContextLength: info.contextLength,
      numCtx: 8192,
    });
    const error = await llm
      .chat(question, { tools: [{ name: "web_search", description: "search", parameters: { type: "object" } }] })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(AppError);
    expect((error as AppError).message).toContain("does not support tools");
  });

  it("names an unknown model", async () => {
    const llm = createOllamaLLM({
      baseUrl: fake().url,
      model: "nope:1b",
      abilities: { tool_call: false, json_mode: true, thinking: false, vision: false },
      modelContextLength: null,
      numCtx: 8192,
    });
    const error = (await collect(llm.streamChat(question)).catch((caught: unknown) => caught)) as AppError;
    expect(error).toBeInstanceOf(AppError);
    expect(error.code).toBe("bad_request:unknown_model");
    expect(error.message).toContain("nope:1b");
  });

  it("keeps the text of a 503 'server busy' and marks it retryable", async () => {
    fake().script({ errorStatus: 503, error: "server busy, please try again.  maximum pending requests exceeded" });
    const llm = await llmFor("llama3.2");
    const error = (await llm.chat(question).catch((caught: unknown) => caught)) as AppError;
    expect(error.message).toContain("server busy");
    expect(error.retryable).toBe(true);
    expect(fake().chatRequests()).toHaveLength(1); // no silent SDK retries
  });
});

describe("a mid-stream error line fails the stream", () => {
  it("throws Ollama's message after the deltas that came before it", async () => {
    fake().script({ chunks: ["Partial ", "answer"], midStreamError: "model runner has unexpectedly stopped" });
    const llm = await llmFor("llama3.2");
    const parts: StreamPart[] = [];
    const error = await (async () => {
      for await (const part of llm.streamChat(question)) parts.push(part);
    })().catch((caught: unknown) => caught);
    expect(parts.filter((p) => p.type === "text").map((p) => (p as { text: string }).text)).toEqual([
      "Partial ",
      "answer",
    ]);
    expect(error).toBeInstanceOf(AppError);
    expect((error as AppError).message).toContain("model runner has unexpectedly stopped");
    expect(parts.some((p) => p.type === "finish")).toBe(false);
  });
});

describe("streaming", () => {
  it("yields text deltas in order and the final usage from Ollama's counts", async () => {
    fake().script({ chunks: ["Hel", "lo ", "world"], promptEvalCount: 21, evalCount: 3 });
    const llm = await llmFor("llama3.2");
    const parts = await collect(llm.streamChat(question));
    const text = parts.flatMap((p) => (p.type === "text" ? [p.text] : [])).join("");
    expect(text).toBe("Hello world");
    expect(parts.at(-1)).toMatchObject({
      type: "finish",
      usage: { inputTokens: 21, outputTokens: 3, totalTokens: 24 },
    });
    expect(lastChatBody().stream).toBe(true);
  });

  it("reports the generation time of the reply from Ollama's eval_duration", async () => {
    fake().script({ chunks: ["Hel", "lo"], evalCount: 40 });
    const llm = await llmFor("llama3.2");
    const finish = (await collect(llm.streamChat(question))).at(-1);
    // The fake spends at least 1 ms per output token (its eval_duration's floor).
    expect(finish?.type === "finish" && finish.usage.generationMs).toBeGreaterThanOrEqual(40);
  });

  it("stop reaches Ollama: aborting closes the model's connection", async () => {
    fake().script({ chunks: Array.from({ length: 50 }, (_, i) => `w${i} `), chunkDelayMs: 50 });
    const llm = await llmFor("llama3.2");
    const controller = new AbortController();
    const seen: string[] = [];
    const error = await (async () => {
      for await (const part of llm.streamChat(question, { signal: controller.signal })) {
        if (part.type === "text") seen.push(part.text);
        if (seen.length === 2) controller.abort();
      }
    })().catch((caught: unknown) => caught);
    expect((error as Error).name).toBe("AbortError");
    await expect.poll(() => fake().chatRequests()[0]?.aborted).toBe(true);
    expect(fake().chatRequests()[0]?.finished).toBe(false);
  });

  it("aborting a non-streaming call that hangs closes the connection too", async () => {
    fake().script({ hang: true });
    const llm = await llmFor("llama3.2");
    const controller = new AbortController();
    const pending = llm.chat(question, { signal: controller.signal });
    await fake().waitForRequests(1);
    controller.abort();
    await expect(pending).rejects.toMatchObject({ name: "AbortError" });
    await expect.poll(() => fake().chatRequests()[0]?.aborted).toBe(true);
  });
});

describe("thinking (think only for models that can)", () => {
  it("sends think:true to a thinking model and returns its reasoning", async () => {
    fake().script({ thinking: "Let me think.", content: "42" });
    const llm = await llmFor("qwen3:8b");
    const result = await llm.chat(question);
    expect(lastChatBody().think).toBe(true);
    expect(result).toMatchObject({ content: "42", reasoning: "Let me think." });
  });

  it("a title call asks a thinking model not to think (thinking off is think:false)", async () => {
    const llm = await llmFor("qwen3:8b");
    await llm.chat(question, { thinking: false });
    expect(lastChatBody().think).toBe(false);
  });

  it("sends think:false to a model without the thinking capability (Ollama would answer 400), even when thinking is asked", async () => {
    const llm = await llmFor("llama3.2");
    await llm.chat(question);
    expect(lastChatBody().think).toBe(false);
    await llm.chat(question, { thinking: true });
    expect(lastChatBody().think).toBe(false);
  });
});

describe("tool calls on the wire", () => {
  const tools = [
    {
      name: "web_search",
      description: "Search the web",
      parameters: { type: "object", properties: { query: { type: "string" } }, required: ["query"] },
    },
  ];

  it("streams the tool loop's reply: thinking and text as they arrive, each tool call whole, then usage", async () => {
    fake().script({
      thinking: "Search first.",
      chunks: ["Let me ", "look."],
      toolCalls: [{ name: "web_search", arguments: { query: "a" }, id: "call_cccc3333" }],
      promptEvalCount: 12,
      evalCount: 4,
    });
    const llm = await llmFor("qwen3:8b");
    const parts = await collect(llm.streamReply(question, { tools }));
    expect(lastChatBody()).toMatchObject({ stream: true, think: true });
    expect(lastChatBody().tools).toHaveLength(1);
    const text = parts.flatMap((p) => (p.type === "text" ? [p.text] : [])).join("");
    const thinking = parts.flatMap((p) => (p.type === "reasoning" ? [p.text] : [])).join("");
    expect(text).toBe("Let me look.");
    expect(thinking).toBe("Search first.");
    expect(parts.filter((p) => p.type === "tool-call")).toEqual([
      { type: "tool-call", call: { id: "call_cccc3333", name: "web_search", arguments: { query: "a" } } },
    ]);
    expect(parts.at(-1)).toMatchObject({ type: "finish", usage: { inputTokens: 12, outputTokens: 4 } });
  });

  it("returns Ollama's tool calls with their ids and object arguments", async () => {
    fake().script({
      toolCalls: [
        { name: "web_search", arguments: { query: "a" }, id: "call_aaaa1111" },
        { name: "web_search", arguments: { query: "b" }, id: "call_bbbb2222" },
      ],
    });
    const llm = await llmFor("llama3.2");
    const result = await llm.chat(question, { tools });
    expect(result.toolCalls).toEqual([
      { id: "call_aaaa1111", name: "web_search", arguments: { query: "a" } },
      { id: "call_bbbb2222", name: "web_search", arguments: { query: "b" } },
    ]);
    expect(lastChatBody().tools[0].function).toMatchObject({ name: "web_search", parameters: tools[0]?.parameters });
  });

  it("sends tool results with tool_name as well as tool_call_id", async () => {
    const llm = await llmFor("llama3.2");
    await llm.chat(
      [
        ...question,
        {
          role: "assistant",
          content: "",
          toolCalls: [{ id: "call_x1", name: "web_search", arguments: { query: "q" } }],
        },
        { role: "tool", content: "[]", toolCallId: "call_x1", toolName: "web_search" },
      ],
      { tools },
    );
    const messages = lastChatBody().messages;
    expect(messages[1].tool_calls[0]).toMatchObject({
      id: "call_x1",
      function: { name: "web_search", arguments: { query: "q" } },
    });
    expect(messages[2]).toMatchObject({
      role: "tool",
      content: "[]",
      tool_call_id: "call_x1",
      tool_name: "web_search",
    });
  });

  it("sends JSON output as format json for JSON mode", async () => {
    fake().script({ content: '{"type":"final_answer","answer":"ok"}' });
    const llm = await llmFor("gemma:2b");
    const result = await llm.chat(question, { output: { type: "json" } });
    expect(lastChatBody().format).toBe("json");
    expect(JSON.parse(result.content)).toEqual({ type: "final_answer", answer: "ok" });
  });

  it("sends JSON output with a schema as that schema in format (constrained decoding), and none without an output", async () => {
    const schema = { type: "object", properties: { tools: { type: "array", items: { type: "string" } } } };
    const llm = await llmFor("gemma:2b");
    await llm.chat(question, { output: { type: "json", schema } });
    expect(lastChatBody().format).toEqual(schema);
    await llm.chat(question);
    expect(lastChatBody()).not.toHaveProperty("format");
  });
});

describe("abilities from /api/show", () => {
  it("maps capabilities and the architecture's context length", async () => {
    const api = new OllamaApi(fake().url);
    expect(await api.describe("qwen3:8b")).toMatchObject({
      contextLength: 40960,
      abilities: { tool_call: true, json_mode: true, thinking: true, vision: false },
    });
    expect((await api.describe("llava:7b")).abilities).toEqual({
      tool_call: false,
      json_mode: true,
      thinking: false,
      vision: true,
    });
  });

  it("caches /api/show per model", async () => {
    const api = new OllamaApi(fake().url);
    await api.describe("llama3.2");
    await api.describe("llama3.2");
    expect(fake().requests.filter((r) => r.path === "/api/show")).toHaveLength(1);
  });

  it("an unknown model is an error naming it, not a crash", async () => {
    const error = (await new OllamaApi(fake().url).describe("ghost:7b").catch((e: unknown) => e)) as AppError;
    expect(error.code).toBe("bad_request:unknown_model");
    expect(error.message).toContain("ghost:7b");
  });

  it("lists installed models with their abilities", async () => {
    const models = await new OllamaApi(fake().url).listModels();
    expect(models.map((m) => m.name)).toEqual(["llama3.2:latest", "qwen3:8b", "gemma:2b", "llava:7b"]);
    expect(models[0]).toMatchObject({ family: "llama", parameterSize: "3.2B", abilities: { tool_call: true } });
  });

  it("Ollama being down is an upstream error that says how to fix it", async () => {
    const error = (await new OllamaApi("http://127.0.0.1:9").version().catch((e: unknown) => e)) as AppError;
    expect(error.code).toBe("upstream:ollama_unreachable");
    expect(error.status).toBe(502);
    expect(error.message).toMatch(/ollama serve|OLLAMA_BASE_URL/);
  });
});

describe("the version probe behind /api/health", () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  const versionRequests = () => fake().requests.filter((r) => r.path === "/api/version").length;

  it("asks Ollama at most once per VERSION_FRESH_MS, however often health is polled", async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    const api = new OllamaApi(fake().url);
    const answers = await Promise.all(Array.from({ length: 20 }, () => api.version()));
    for (let poll = 0; poll < 20; poll++) answers.push(await api.version());
    expect(new Set(answers)).toEqual(new Set(["0.12.10"]));
    expect(versionRequests()).toBe(1);

    vi.setSystemTime(Date.now() + VERSION_FRESH_MS + 1);
    await api.version();
    expect(versionRequests()).toBe(2);
  });

  it("a failed probe is the answer for as long, then Ollama is asked again", async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    const api = new OllamaApi("http://127.0.0.1:9");
    const first = await api.version().catch((error: unknown) => error);
    expect(await api.version().catch((error: unknown) => error)).toBe(first);
    vi.setSystemTime(Date.now() + VERSION_FRESH_MS + 1);
    expect(await api.version().catch((error: unknown) => error)).not.toBe(first);
  });
});

describe("request timeout (every outbound call has one)", () => {
  async function llmWithTimeout(timeoutMs: number): Promise<LLM> {
    const info = await new OllamaApi(fake().url).describe("llama3.2");
    return createOllamaLLM({
      baseUrl: fake().url,
      model: "llama3.2",
      abilities: info.abilities,
      modelContextLength: info.contextLength,
      numCtx: 4096,
      timeoutMs,
    });
  }

  it("a model that never answers fails the call with a clear, retryable timeout error", async () => {
    fake().script({ hang: true });
    const llm = await llmWithTimeout(150);
    const error = (await llm.chat(question).catch((caught: unknown) => caught)) as AppError;
    expect(error).toBeInstanceOf(AppError);
    expect(error.code).toBe("upstream:ollama_timeout");
    expect(error.retryable).toBe(true);
    await expect.poll(() => fake().chatRequests()[0]?.aborted).toBe(true);
  });

  it("a stream that stalls past the timeout fails the same way", async () => {
    fake().script({ chunks: ["a", "b"], chunkDelayMs: 1000 });
    const llm = await llmWithTimeout(200);
    const error = (await collect(llm.streamChat(question)).catch((caught: unknown) => caught)) as AppError;
    expect(error.code).toBe("upstream:ollama_timeout");
  });
});
