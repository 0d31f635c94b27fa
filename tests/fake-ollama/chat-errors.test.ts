// /api/chat failures exactly as Ollama reports them, plus timing: delays, hangs and client aborts.
import { describe, expect, it } from "vitest";
import { defaultReply } from "./reply";
import { chat, lines, post, readNdjson, setupFakeOllama, until, userMessage } from "./test-helpers";

const fake = setupFakeOllama();

const tool = { type: "function", function: { name: "t", parameters: { type: "object", properties: {} } } };

async function expectError(res: Response, status: number, message: string | RegExp) {
  expect(res.status).toBe(status);
  expect(res.headers.get("content-type")).toMatch(/^application\/json/);
  const body = (await res.json()) as { error: unknown };
  expect(Object.keys(body)).toEqual(["error"]);
  if (typeof message === "string") expect(body.error).toBe(message);
  else expect(body.error).toMatch(message);
}

describe("fake ollama: request validation errors", () => {
  it("answers an empty body with 400 missing request body", async () => {
    await expectError(await fetch(`${fake().url}/api/chat`, { method: "POST" }), 400, "missing request body");
  });

  it("answers bytes that are not JSON with 400 and Go's syntax error", async () => {
    await expectError(
      await post(`${fake().url}/api/chat`, "hello"),
      400,
      "invalid character 'h' looking for beginning of value",
    );
  });

  it("rejects message content sent as an array with 400 json: cannot unmarshal", async () => {
    const messages = [{ role: "user", content: [{ type: "text", text: "hi" }] }];
    await expectError(
      await chat(fake(), { model: "llama3.2", messages }),
      400,
      "json: cannot unmarshal array into Go struct field ChatRequest.messages.content of type string",
    );
  });

  it("rejects tool-call arguments sent as a string instead of an object with 400 json: cannot unmarshal", async () => {
    const messages = [
      ...userMessage("q"),
      { role: "assistant", content: "", tool_calls: [{ function: { name: "t", arguments: '{"a":1}' } }] },
    ];
    await expectError(
      await chat(fake(), { model: "llama3.2", messages }),
      400,
      /^json: cannot unmarshal string into Go struct field ChatRequest\.messages\.tool_calls\.function\.arguments/,
    );
  });

  it("rejects a top-level field of the wrong type with 400 json: cannot unmarshal", async () => {
    await expectError(
      await chat(fake(), { model: "llama3.2", messages: userMessage("q"), stream: "yes" }),
      400,
      "json: cannot unmarshal string into Go struct field ChatRequest.stream of type bool",
    );
  });

  it("rejects an image sent as a data URL, since Ollama wants bare base64", async () => {
    const messages = [{ role: "user", content: "see", images: ["data:image/png;base64,AAAA"] }];
    await expectError(await chat(fake(), { model: "llava:7b", messages }), 400, "illegal base64 data at input byte 4");
    const ok = [{ role: "user", content: "see", images: ["iVBORw0KGgo="] }];
    expect((await chat(fake(), { model: "llava:7b", messages: ok })).status).toBe(200);
  });

  it("answers a missing model with 400 model is required", async () => {
    await expectError(await chat(fake(), { messages: userMessage("q") }), 400, "model is required");
  });

  it("answers an unknown model with 404 model 'x' not found", async () => {
    await expectError(
      await chat(fake(), { model: "mistral", messages: userMessage("q") }),
      404,
      "model 'mistral' not found",
    );
  });

  it("answers tools sent to a model without tool support with 400 <full name> does not support tools", async () => {
    await expectError(
      await chat(fake(), { model: "gemma:2b", messages: userMessage("q"), tools: [tool] }),
      400,
      "registry.ollama.ai/library/gemma:2b does not support tools",
    );
  });

  it("ignores an empty tools list on a model without tool support", async () => {
    expect((await chat(fake(), { model: "gemma:2b", messages: userMessage("q"), tools: [] })).status).toBe(200);
  });

  it('answers think:true on a model without thinking with 400 "<name>" does not support thinking', async () => {
    await expectError(
      await chat(fake(), { model: "llama3.2", messages: userMessage("q"), think: true }),
      400,
      '"llama3.2" does not support thinking',
    );
    expect((await chat(fake(), { model: "llama3.2", messages: userMessage("q"), think: false })).status).toBe(200);
  });

  it("accepts think levels on a thinking model and rejects unknown levels", async () => {
    expect((await chat(fake(), { model: "qwen3:8b", messages: userMessage("q"), think: "high" })).status).toBe(200);
    await expectError(
      await chat(fake(), { model: "qwen3:8b", messages: userMessage("q"), think: "max" }),
      400,
      'invalid think value: "max" (must be "high", "medium", "low", true, or false)',
    );
  });

  it("ignores unknown top-level fields such as temperature and tool_choice", async () => {
    const body = { model: "llama3.2", messages: userMessage("q"), temperature: 0, tool_choice: "required" };
    expect((await chat(fake(), body)).status).toBe(200);
  });

  it("fails a known option of the wrong type with 500, as Ollama's options parser does", async () => {
    await expectError(
      await chat(fake(), { model: "llama3.2", messages: userMessage("q"), options: { num_ctx: "8192" } }),
      500,
      'option "num_ctx" must be of type integer',
    );
  });

  it("does not consume a scripted reply with a request that fails validation", async () => {
    fake().script({ content: "kept" });
    await chat(fake(), { model: "nope", messages: userMessage("q") });
    const chunks = await readNdjson(await chat(fake(), { model: "llama3.2", messages: userMessage("q") }));
    expect(chunks.map((c) => c.message?.content).join("")).toBe("kept");
  });
});

describe("fake ollama: scripted failures", () => {
  it("answers a scripted errorStatus with that status and an {error} body", async () => {
    fake().script({ errorStatus: 503, error: "server busy, please try again.  maximum pending requests exceeded" });
    await expectError(
      await chat(fake(), { model: "llama3.2", messages: userMessage("q") }),
      503,
      "server busy, please try again.  maximum pending requests exceeded",
    );
  });

  it("keeps status 200 and ends with an {error} line for a midStreamError after chunks", async () => {
    fake().script({ chunks: ["par", "tial"], midStreamError: "error parsing tool call: raw='{'" });
    const res = await chat(fake(), { model: "llama3.2", messages: userMessage("q") });
    expect(res.status).toBe(200);
    const chunks = await readNdjson(res);
    expect(chunks.map((c) => c.message?.content ?? c.error)).toEqual([
      "par",
      "tial",
      "error parsing tool call: raw='{'",
    ]);
    expect(chunks.some((c) => c.done === true)).toBe(false);
  });

  it("cuts the connection after the chunks, with no last line, for dropConnection", async () => {
    fake().script({ chunks: ["par", "tial"], dropConnection: true });
    const res = await chat(fake(), { model: "llama3.2", messages: userMessage("q") });
    expect(res.status).toBe(200);
    await expect(readNdjson(res)).rejects.toThrow();
  });

  it("turns an error before any chunk into a 500 status, since headers were not sent yet", async () => {
    fake().script({ content: "", midStreamError: "runner crashed" });
    await expectError(await chat(fake(), { model: "llama3.2", messages: userMessage("q") }), 500, "runner crashed");
  });

  it("answers a failing non-streamed request with 500 and the error", async () => {
    fake().script({ content: "half", midStreamError: "runner crashed" });
    const res = await chat(fake(), { model: "llama3.2", messages: userMessage("q"), stream: false });
    await expectError(res, 500, "runner crashed");
  });
});

describe("fake ollama: timing and client aborts", () => {
  it("holds back the headers for delayMs", async () => {
    fake().script({ content: "late", delayMs: 200 });
    const started = Date.now();
    const res = await chat(fake(), { model: "llama3.2", messages: userMessage("q") });
    expect(Date.now() - started).toBeGreaterThanOrEqual(180);
    await readNdjson(res);
  });

  it("records a hanging request as aborted once the client aborts it", async () => {
    fake().script({ hang: true });
    const controller = new AbortController();
    const pending = chat(fake(), { model: "llama3.2", messages: userMessage("q") }, { signal: controller.signal });
    await fake().waitForRequests(1);
    expect(fake().chatRequests()[0]).toMatchObject({ aborted: false, finished: false });
    controller.abort();
    await expect(pending).rejects.toThrow();
    await until(() => fake().chatRequests()[0]?.aborted === true);
    expect(fake().chatRequests()[0]?.finished).toBe(false);
  });

  it("streams [slow] replies 150 ms apart and records aborted when the client stops mid-stream", async () => {
    const controller = new AbortController();
    const res = await chat(
      fake(),
      { model: "llama3.2", messages: userMessage("q [slow]") },
      { signal: controller.signal },
    );
    const arrivals: number[] = [];
    for await (const { at } of lines(res)) {
      arrivals.push(at);
      if (arrivals.length === 3) break;
    }
    controller.abort();
    expect((arrivals[2] ?? 0) - (arrivals[0] ?? 0)).toBeGreaterThanOrEqual(250);
    await until(() => fake().chatRequests()[0]?.aborted === true);
  });

  it("plans [slow] as 40 chunks 150 ms apart", () => {
    const reply = defaultReply({ model: "llama3.2", messages: userMessage("q [slow]") });
    expect(reply.chunks).toHaveLength(40);
    expect(reply.chunkDelayMs).toBe(150);
  });
});
