// The /api/chat reply on the wire: NDJSON chunk shapes, tool calls, thinking, non-stream merge, markers.
import { describe, expect, it } from "vitest";
import { chat, readNdjson, setupFakeOllama, userMessage } from "./test-helpers";

const fake = setupFakeOllama();

const webSearch = {
  type: "function",
  function: {
    name: "web_search",
    description: "Search the web",
    parameters: { type: "object", properties: { query: { type: "string" } }, required: ["query"] },
  },
};

const text = (chunks: { message?: { content: string } }[]) => chunks.map((c) => c.message?.content ?? "").join("");

describe("fake ollama: streamed /api/chat", () => {
  it("streams by default as application/x-ndjson, one chunk per line", async () => {
    fake().script({ chunks: ["Hel", "lo", " world"] });
    const res = await chat(fake(), { model: "llama3.2", messages: userMessage("hi") });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("application/x-ndjson");
    const chunks = await readNdjson(res);
    expect(chunks.map((c) => c.message?.content)).toEqual(["Hel", "lo", " world", ""]);
    expect(chunks.map((c) => c.done)).toEqual([false, false, false, true]);
  });

  it("gives every chunk model, created_at and a message with role and content, never an empty thinking", async () => {
    fake().script({ content: "Two words" });
    const chunks = await readNdjson(await chat(fake(), { model: "llama3.2", messages: userMessage("hi") }));
    for (const chunk of chunks) {
      expect(chunk.model).toBe("llama3.2");
      expect(Number.isNaN(Date.parse(chunk.created_at ?? ""))).toBe(false);
      expect(chunk.message).toMatchObject({ role: "assistant", content: expect.any(String) });
      expect(chunk.message).not.toHaveProperty("thinking");
      expect(chunk.message).not.toHaveProperty("tool_calls");
    }
  });

  it("ends with a done chunk carrying done_reason, token counts and integer nanosecond durations", async () => {
    fake().script({ content: "ok", promptEvalCount: 169, evalCount: 15 });
    const chunks = await readNdjson(await chat(fake(), { model: "llama3.2", messages: userMessage("hi") }));
    const final = chunks.at(-1);
    expect(final).toMatchObject({ done: true, done_reason: "stop", prompt_eval_count: 169, eval_count: 15 });
    expect(final?.message).toEqual({ role: "assistant", content: "" });
    for (const key of ["total_duration", "load_duration", "prompt_eval_duration", "eval_duration"] as const) {
      expect(Number.isInteger(final?.[key])).toBe(true);
      expect(final?.[key]).toBeGreaterThan(0);
    }
    expect(final?.total_duration).toBeGreaterThanOrEqual(
      (final?.load_duration ?? 0) + (final?.prompt_eval_duration ?? 0) + (final?.eval_duration ?? 0),
    );
    expect(chunks.slice(0, -1).every((c) => c.eval_count === undefined && c.done_reason === undefined)).toBe(true);
  });

  it("reports done_reason length when the reply was cut off", async () => {
    fake().script({ content: "cut", doneReason: "length" });
    const chunks = await readNdjson(await chat(fake(), { model: "llama3.2", messages: userMessage("hi") }));
    expect(chunks.at(-1)?.done_reason).toBe("length");
  });

  it("estimates token counts from the text when none are scripted", async () => {
    const chunks = await readNdjson(await chat(fake(), { model: "llama3.2", messages: userMessage("hello there") }));
    expect(chunks.at(-1)?.prompt_eval_count).toBeGreaterThan(0);
    expect(chunks.at(-1)?.eval_count).toBeGreaterThan(0);
  });

  it("sends each tool call whole in its own chunk with a call_ id, function.index and object arguments", async () => {
    fake().script({
      toolCalls: [
        { name: "web_search", arguments: { query: "a" } },
        { name: "web_search", arguments: { query: "b" } },
      ],
    });
    const body = { model: "qwen3:8b", messages: userMessage("find"), tools: [webSearch], think: false };
    const chunks = await readNdjson(await chat(fake(), body));
    const withCalls = chunks.filter((c) => c.message?.tool_calls);
    expect(withCalls).toHaveLength(2);
    withCalls.forEach((chunk, index) => {
      expect(chunk.done).toBe(false);
      expect(chunk.message?.content).toBe("");
      const [call] = chunk.message?.tool_calls ?? [];
      expect(call?.id).toMatch(/^call_[a-z0-9]{8}$/);
      expect(call?.function).toEqual({ index, name: "web_search", arguments: { query: index ? "b" : "a" } });
    });
    expect(chunks.at(-1)?.message).not.toHaveProperty("tool_calls");
  });

  it("keeps a scripted tool-call id and sends string arguments as-is to mimic a broken model", async () => {
    fake().script({ toolCalls: [{ id: "call_fixed123", name: "web_search", arguments: '{"query":"x"}' }] });
    const body = { model: "llama3.2", messages: userMessage("find"), tools: [webSearch] };
    const chunks = await readNdjson(await chat(fake(), body));
    const call = chunks.find((c) => c.message?.tool_calls)?.message?.tool_calls?.[0];
    expect(call).toEqual({
      id: "call_fixed123",
      function: { index: 0, name: "web_search", arguments: '{"query":"x"}' },
    });
  });

  it("leaves a tool call as text in content when the request offered no tools", async () => {
    fake().script({ toolCalls: [{ name: "web_search", arguments: { query: "x" } }] });
    const chunks = await readNdjson(await chat(fake(), { model: "llama3.2", messages: userMessage("find") }));
    expect(chunks.some((c) => c.message?.tool_calls)).toBe(false);
    expect(JSON.parse(text(chunks))).toEqual({ name: "web_search", arguments: { query: "x" } });
  });

  it("streams thinking before content on a thinking model, with content present as an empty string", async () => {
    fake().script({ thinking: "Let me think", content: "Answer" });
    const chunks = await readNdjson(await chat(fake(), { model: "qwen3:8b", messages: userMessage("q"), think: true }));
    const thinking = chunks.filter((c) => c.message?.thinking);
    expect(thinking.map((c) => c.message?.thinking).join("")).toBe("Let me think");
    expect(thinking.every((c) => c.message?.content === "")).toBe(true);
    const firstContent = chunks.findIndex((c) => c.message?.content);
    expect(firstContent).toBeGreaterThan(chunks.indexOf(thinking.at(-1) ?? chunks[0]!));
    expect(text(chunks)).toBe("Answer");
  });

  it("thinks when think is omitted on a thinking model, and not when think is false", async () => {
    fake().script({ thinking: "hmm", content: "a" }, { thinking: "hmm", content: "b" });
    const omitted = await readNdjson(await chat(fake(), { model: "qwen3:8b", messages: userMessage("q") }));
    expect(omitted.some((c) => c.message?.thinking)).toBe(true);
    const off = await readNdjson(await chat(fake(), { model: "qwen3:8b", messages: userMessage("q"), think: false }));
    expect(off.some((c) => c.message && "thinking" in c.message)).toBe(false);
  });

  it("resolves llama3.2 to llama3.2:latest and echoes the requested name in model", async () => {
    const chunks = await readNdjson(await chat(fake(), { model: "llama3.2", messages: userMessage("hi") }));
    expect(chunks.every((c) => c.model === "llama3.2")).toBe(true);
    const full = await readNdjson(await chat(fake(), { model: "llama3.2:latest", messages: userMessage("hi") }));
    expect(full.at(-1)?.model).toBe("llama3.2:latest");
  });

  it("loads the model on an empty messages list (done_reason load) and unloads with keep_alive 0", async () => {
    const load = await chat(fake(), { model: "llama3.2", messages: [] });
    expect(await load.json()).toMatchObject({ done: true, done_reason: "load", message: { role: "assistant" } });
    const unload = await chat(fake(), { model: "llama3.2", keep_alive: 0 });
    expect(await unload.json()).toMatchObject({ done: true, done_reason: "unload" });
  });
});

describe("fake ollama: non-streamed /api/chat", () => {
  it("returns one application/json object with content, thinking and tool calls merged", async () => {
    fake().script({
      thinking: "I should search",
      content: "Searching.",
      toolCalls: [{ name: "web_search", arguments: { query: "x" } }],
    });
    const body = { model: "qwen3:8b", messages: userMessage("q"), tools: [webSearch], stream: false };
    const res = await chat(fake(), body);
    expect(res.headers.get("content-type")).toBe("application/json; charset=utf-8");
    const reply = (await res.json()) as Record<string, unknown> & { message: Record<string, unknown> };
    expect(reply.message).toMatchObject({ role: "assistant", content: "Searching.", thinking: "I should search" });
    expect(reply.message.tool_calls).toEqual([
      {
        id: expect.stringMatching(/^call_[a-z0-9]{8}$/),
        function: { index: 0, name: "web_search", arguments: { query: "x" } },
      },
    ]);
    expect(reply).toMatchObject({ done: true, done_reason: "stop", model: "qwen3:8b" });
    expect(reply.eval_count).toEqual(expect.any(Number));
  });

  it("omits thinking and tool_calls from the merged message when there are none", async () => {
    fake().script({ content: "plain" });
    const res = await chat(fake(), { model: "llama3.2", messages: userMessage("q"), stream: false });
    const reply = (await res.json()) as { message: Record<string, unknown> };
    expect(reply.message).toEqual({ role: "assistant", content: "plain" });
  });
});

describe("fake ollama: default responder and markers", () => {
  it("echoes the last user message as a short Markdown answer in several chunks", async () => {
    const messages = [...userMessage("first"), { role: "assistant", content: "x" }, ...userMessage("What is up?")];
    const chunks = await readNdjson(await chat(fake(), { model: "llama3.2", messages }));
    expect(text(chunks)).toBe("**Echo:** What is up?\n\n- item one\n- item two");
    expect(chunks.length).toBeGreaterThan(3);
  });

  it("writes a mid-stream error line after 3 chunks for [error], keeping status 200 and no done chunk", async () => {
    const res = await chat(fake(), { model: "llama3.2", messages: userMessage("boom [error]") });
    expect(res.status).toBe(200);
    const chunks = await readNdjson(res);
    expect(chunks).toHaveLength(4);
    expect(chunks.slice(0, 3).every((c) => c.done === false)).toBe(true);
    expect(chunks[3]).toEqual({ error: "model runner has unexpectedly stopped" });
  });

  it("adds thinking for [think] only when the model can think and think is not false", async () => {
    const thinks = await readNdjson(await chat(fake(), { model: "qwen3:8b", messages: userMessage("q [think]") }));
    expect(thinks.some((c) => c.message?.thinking)).toBe(true);
    expect(text(thinks)).toContain("**Echo:** q");
    const llama = await readNdjson(await chat(fake(), { model: "llama3.2", messages: userMessage("q [think]") }));
    expect(llama.some((c) => c.message?.thinking)).toBe(false);
    const off = { model: "qwen3:8b", messages: userMessage("q [think]"), think: false };
    expect((await readNdjson(await chat(fake(), off))).some((c) => c.message?.thinking)).toBe(false);
  });

  it("calls the offered tool for [tool] with arguments built from its schema, only right after a user turn", async () => {
    const body = { model: "llama3.2", messages: userMessage("cats [tool]"), tools: [webSearch] };
    const chunks = await readNdjson(await chat(fake(), body));
    const call = chunks.find((c) => c.message?.tool_calls)?.message?.tool_calls?.[0];
    expect(call?.function).toMatchObject({ name: "web_search", arguments: { query: "cats" } });
    const afterTool = {
      ...body,
      messages: [...body.messages, { role: "tool", content: "r", tool_name: "web_search" }],
    };
    const next = await readNdjson(await chat(fake(), afterTool));
    expect(next.some((c) => c.message?.tool_calls)).toBe(false);
  });

  it("answers JSON when format is set: {echo} for 'json', a schema-shaped object for a schema", async () => {
    const json = await readNdjson(
      await chat(fake(), { model: "llama3.2", messages: userMessage("hi"), format: "json" }),
    );
    expect(JSON.parse(text(json))).toEqual({ echo: "hi" });
    const format = { type: "object", properties: { title: { type: "string" }, n: { type: "integer" } } };
    const schema = await readNdjson(await chat(fake(), { model: "llama3.2", messages: userMessage("hi"), format }));
    expect(JSON.parse(text(schema))).toEqual({ title: "hi", n: 1 });
  });
});
