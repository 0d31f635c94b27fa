// Streamed chat completions as a client reads them: SSE framing, chunk envelopes, deltas of text, reasoning
// and tool calls, finish reasons, the usage chunk, [DONE], and streams that fail, stall or are abandoned.
import { describe, expect, it } from "vitest";
import { reasoningField } from "./flavor";
import type { Flavor } from "./server";
import { assemble, chat, readSse, setupFakeOpenAI, until, user, webSearch } from "./test-helpers";

const FIRST_DELTA: Record<Flavor, unknown> = {
  "llama-server": { role: "assistant", content: null },
  vllm: { role: "assistant", content: "" },
};

describe.each(["llama-server", "vllm"] as const)("fake openai (%s): streamed chat", (flavor) => {
  const fake = setupFakeOpenAI({ flavor });
  const field = reasoningField(flavor);
  const stream = (body: Record<string, unknown>) => chat(fake(), { stream: true, ...body });

  it("sends text/event-stream data events of chat.completion.chunk sharing one id, then data: [DONE]", async () => {
    fake().script({ chunks: ["Hel", "lo", " world"] });
    const res = await stream({ messages: user("hi") });
    expect(res.headers.get("content-type")).toMatch(/^text\/event-stream/);
    const { events, done } = await readSse(res);
    expect(done).toBe(true);
    expect(new Set(events.map((e) => e.object))).toEqual(new Set(["chat.completion.chunk"]));
    expect(new Set(events.map((e) => e.id)).size).toBe(1);
    expect(events[0].id).toMatch(/^chatcmpl-/);
    expect(events[0].choices[0].delta).toEqual(FIRST_DELTA[flavor]);
    expect(assemble(events, field).content).toBe("Hello world");
    expect(events.at(-1).choices[0]).toMatchObject({ index: 0, finish_reason: "stop" });
    expect(events.slice(0, -1).every((e) => e.choices[0].finish_reason === null)).toBe(true);
  });

  it("adds a usage chunk with empty choices only when stream_options.include_usage is true", async () => {
    fake().script({ content: "ok", promptTokens: 12, completionTokens: 3 }, { content: "ok" });
    const withUsage = (await readSse(await stream({ messages: user("hi"), stream_options: { include_usage: true } })))
      .events;
    expect(withUsage.at(-1)).toMatchObject({
      choices: [],
      usage: { prompt_tokens: 12, completion_tokens: 3, total_tokens: 15 },
    });
    expect(withUsage.at(-2).choices[0].finish_reason).toBe("stop");
    const without = (await readSse(await stream({ messages: user("hi") }))).events;
    expect(without.some((e) => e.usage)).toBe(false);
  });

  it("streams a tool call as a first delta with id, type and name, then index-only argument fragments", async () => {
    const args = { query: "weather in Kyoto tomorrow", limit: 3 };
    fake().script({ toolCalls: [{ name: "web_search", arguments: args }] });
    const { events, done } = await readSse(await stream({ messages: user("find"), tools: [webSearch] }));
    expect(done).toBe(true);
    const parts = events.flatMap((e) => e.choices[0]?.delta.tool_calls ?? []);
    expect(parts[0]).toMatchObject({
      index: 0,
      id: expect.any(String),
      type: "function",
      function: { name: "web_search" },
    });
    expect(parts.length).toBeGreaterThan(3);
    for (const later of parts.slice(1)) expect(Object.keys(later).sort()).toEqual(["function", "index"]);
    const [call] = assemble(events, field).calls;
    expect(JSON.parse(call?.arguments ?? "")).toEqual(args);
    expect(events.at(-1).choices[0].finish_reason).toBe("tool_calls");
  });

  it("keeps two calls apart by index and reassembles each to valid JSON", async () => {
    fake().script({
      toolCalls: [
        { name: "web_search", arguments: { query: "a" } },
        { name: "web_search", arguments: { query: "b" } },
      ],
    });
    const { events } = await readSse(await stream({ messages: user("find"), tools: [webSearch] }));
    const calls = assemble(events, field).calls;
    expect(calls.map((c) => JSON.parse(c.arguments))).toEqual([{ query: "a" }, { query: "b" }]);
    expect(new Set(calls.map((c) => c.id)).size).toBe(2);
  });

  it(`streams thinking as ${reasoningField(flavor)} deltas before the text`, async () => {
    fake().script({ reasoning: "Let me think.", content: "Answer." });
    const { events } = await readSse(await stream({ messages: user("q") }));
    const { reasoning, content } = assemble(events, field);
    expect([reasoning, content]).toEqual(["Let me think.", "Answer."]);
  });

  it("leaves thinking in content as <think>…</think> on a model without a reasoning parser", async () => {
    fake().setModels([{ id: "m", contextLength: 8192, reasoning: false }]);
    fake().script({ reasoning: "Hmm.", content: "Answer." });
    const { events } = await readSse(await stream({ messages: user("q") }));
    expect(assemble(events, field)).toMatchObject({ reasoning: "", content: "<think>\nHmm.\n</think>\n\nAnswer." });
  });

  it("reports finish_reason length when the reply was cut off", async () => {
    fake().script({ content: "cut", finishReason: "length" });
    const { events } = await readSse(await stream({ messages: user("q") }));
    expect(assemble(events, field).finishReasons).toEqual(["length"]);
  });

  it("sends a mid-stream error as a data event with an error object, after the chunks so far", async () => {
    fake().script({ chunks: ["partial "], midStreamError: "boom" });
    const res = await stream({ messages: user("q") });
    expect(res.status).toBe(200);
    const { events, done } = await readSse(res);
    expect(assemble(events, field).content).toBe("partial ");
    expect(events.at(-1).error).toMatchObject({ message: "boom", code: 500 });
    // llama-server stops at the error; vLLM still terminates with [DONE].
    expect(done).toBe(flavor === "vllm");
  });

  it("cuts the connection without a finish chunk or [DONE] when the reply drops", async () => {
    fake().script({ chunks: ["a", "b"], dropConnection: true });
    const res = await stream({ messages: user("q") });
    await expect(res.text()).rejects.toThrow();
  });

  it("spaces chunks by chunkDelayMs", async () => {
    fake().script({ chunks: ["a", "b", "c"], chunkDelayMs: 60 });
    const started = Date.now();
    await readSse(await stream({ messages: user("q") }));
    expect(Date.now() - started).toBeGreaterThanOrEqual(180);
  });

  it("stops streaming when the client aborts and records the request as aborted", async () => {
    fake().script({ chunks: Array.from({ length: 50 }, (_, i) => `w${i} `), chunkDelayMs: 20 });
    const reader = (await stream({ messages: user("q") })).body?.getReader();
    await reader?.read();
    await reader?.cancel();
    await until(() => fake().chatRequests()[0]?.aborted === true);
    expect(fake().chatRequests()[0]?.finished).toBe(false);
  });
});
