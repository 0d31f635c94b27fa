// Whole (non-streamed) chat completions, each server's error bodies, and the ability probes an adapter runs:
// tools and response_format refused or ignored the way each server does it.
import { describe, expect, it } from "vitest";
import type { Flavor } from "./server";
import { chat, type Json, setupFakeOpenAI, user, webSearch } from "./test-helpers";

const errorOf = async (res: Response): Promise<Json> => ((await res.json()) as Json).error;

describe.each(["llama-server", "vllm"] as const)("fake openai (%s): whole completions", (flavor) => {
  const fake = setupFakeOpenAI({ flavor });

  it("answers a chat.completion with an assistant message, finish_reason stop and usage", async () => {
    fake().script({ content: "Hello there.", promptTokens: 9, completionTokens: 3 });
    const res = await chat(fake(), { model: fake().flavor === "vllm" ? "Qwen/Qwen3-8B" : "any", messages: user("hi") });
    expect(res.headers.get("content-type")).toMatch(/^application\/json/);
    const body = (await res.json()) as Json;
    expect(body).toMatchObject({
      object: "chat.completion",
      id: expect.stringMatching(/^chatcmpl-/),
      created: expect.any(Number),
    });
    expect(body.choices[0]).toMatchObject({
      index: 0,
      finish_reason: "stop",
      message: { role: "assistant", content: "Hello there." },
    });
    expect(body.usage).toMatchObject({ prompt_tokens: 9, completion_tokens: 3, total_tokens: 12 });
  });

  it("returns tool calls with JSON-string arguments, content null and finish_reason tool_calls", async () => {
    fake().script({ toolCalls: [{ name: "web_search", arguments: { query: "x" } }] });
    const body = (await (await chat(fake(), { messages: user("find"), tools: [webSearch] })).json()) as Json;
    const { message, finish_reason } = body.choices[0];
    expect(finish_reason).toBe("tool_calls");
    expect(message.content).toBeNull();
    expect(message.tool_calls).toEqual([
      { id: expect.any(String), type: "function", function: { name: "web_search", arguments: '{"query":"x"}' } },
    ]);
  });

  it("leaves a call as text in content when the request offered no tools", async () => {
    fake().script({ toolCalls: [{ name: "web_search", arguments: { query: "x" } }] });
    const body = (await (await chat(fake(), { messages: user("find") })).json()) as Json;
    expect(body.choices[0].message).not.toHaveProperty("tool_calls");
    expect(body.choices[0].message.content).toContain("web_search");
  });

  it("answers the default echo as JSON for response_format json_object and json_schema", async () => {
    const object = (await (
      await chat(fake(), { messages: user("hi"), response_format: { type: "json_object" } })
    ).json()) as Json;
    expect(JSON.parse(object.choices[0].message.content)).toEqual({ echo: "hi" });
    const schema = { type: "object", properties: { answer: { type: "string" }, n: { type: "integer" } } };
    const format = { type: "json_schema", json_schema: { name: "out", schema } };
    const shaped = (await (await chat(fake(), { messages: user("hi"), response_format: format })).json()) as Json;
    expect(JSON.parse(shaped.choices[0].message.content)).toEqual({ answer: "hi", n: 1 });
    expect(fake().chatRequests()[1]?.body.response_format).toEqual(format);
  });

  it("emits a tool call for [tool] in the message when tools are offered (the default responder)", async () => {
    const body = (await (
      await chat(fake(), { messages: user("look up [tool] kyoto"), tools: [webSearch] })
    ).json()) as Json;
    const [call] = body.choices[0].message.tool_calls;
    expect(call.function.name).toBe("web_search");
    expect(JSON.parse(call.function.arguments)).toEqual({ query: "look up kyoto" });
  });

  it("answers a scripted errorStatus in its own error shape", async () => {
    fake().script({ errorStatus: 503, error: "Loading model" });
    const res = await chat(fake(), { messages: user("hi") });
    expect(res.status).toBe(503);
    expect(await errorOf(res)).toMatchObject({ message: "Loading model", code: 503, type: expect.any(String) });
  });

  it("refuses a prompt longer than the context with 400 in its own wording, consuming no scripted reply", async () => {
    fake().setModels([{ id: "tiny", contextLength: 64 }]);
    fake().script({ content: "kept" });
    const res = await chat(fake(), { messages: user("word ".repeat(100)) });
    expect(res.status).toBe(400);
    const error = await errorOf(res);
    const wording: Record<Flavor, RegExp> = {
      "llama-server": /^request \(\d+ tokens\) exceeds the available context size \(64 tokens\), try increasing it$/,
      vllm: /^This model's maximum context length is 64 tokens\. However, your request has \d+ input tokens\./,
    };
    expect(error.message).toMatch(wording[flavor]);
    if (flavor === "llama-server") expect(error).toMatchObject({ type: "exceed_context_size_error", n_ctx: 64 });
    const next = (await (await chat(fake(), { messages: user("short") })).json()) as Json;
    expect(next.choices[0].message.content).toBe("kept");
  });
});

describe("fake openai: ability probes", () => {
  const llama = setupFakeOpenAI({ flavor: "llama-server" });
  const vllm = setupFakeOpenAI({ flavor: "vllm" });
  const probe = { messages: user("probe"), tools: [webSearch], max_tokens: 8 };

  it("llama-server without --jinja refuses tools with 500 server_error 'tools param requires --jinja flag'", async () => {
    llama().setModels([{ id: "m", contextLength: 4096, tools: false }]);
    const res = await chat(llama(), probe);
    expect(res.status).toBe(500);
    expect(await errorOf(res)).toEqual({
      code: 500,
      message: "tools param requires --jinja flag",
      type: "server_error",
    });
  });

  it("vllm without --enable-auto-tool-choice refuses tool_choice auto with 400 and still serves tool_choice none", async () => {
    vllm().setModels([{ id: "m", contextLength: 4096, tools: false }]);
    const res = await chat(vllm(), probe);
    expect(res.status).toBe(400);
    expect(await errorOf(res)).toEqual({
      message: '"auto" tool choice requires --enable-auto-tool-choice and --tool-call-parser to be set',
      type: "BadRequestError",
      param: null,
      code: 400,
    });
    expect((await chat(vllm(), { ...probe, tool_choice: "none" })).status).toBe(200);
  });

  it("vllm answers an unknown model with 404 'The model `x` does not exist.'", async () => {
    const res = await chat(vllm(), { model: "nope", messages: user("hi") });
    expect(res.status).toBe(404);
    expect(await errorOf(res)).toEqual({
      message: "The model `nope` does not exist.",
      type: "NotFoundError",
      param: "model",
      code: 404,
    });
  });

  it("refuses an unsupported json_schema with 400 in each server's wording, or ignores it and answers free text", async () => {
    const format = { type: "json_schema", json_schema: { name: "o", schema: { type: "object" } } };
    llama().setModels([{ id: "m", contextLength: 4096, jsonModes: ["json_object"] }]);
    const refused = await chat(llama(), { messages: user("hi"), response_format: format });
    expect([refused.status, (await errorOf(refused)).message]).toEqual([
      400,
      'response_format type must be one of "text" or "json_object", but got: json_schema',
    ]);
    vllm().setModels([{ id: "m", contextLength: 4096, jsonModes: [] }]);
    const xgrammar = await errorOf(await chat(vllm(), { messages: user("hi"), response_format: format }));
    expect(xgrammar.message).toBe("The provided JSON schema contains features not supported by xgrammar.");
    vllm().setModels([{ id: "m", contextLength: 4096, jsonModes: [], unsupportedFormat: "ignore" }]);
    const ignored = (await (await chat(vllm(), { messages: user("hi"), response_format: format })).json()) as Json;
    expect(() => JSON.parse(ignored.choices[0].message.content)).toThrow();
  });

  it("vllm refuses max_tokens that do not fit beside the prompt, and stream_options without stream", async () => {
    vllm().setModels([{ id: "m", contextLength: 100 }]);
    const tooMany = await errorOf(await chat(vllm(), { messages: user("hi"), max_tokens: 500 }));
    expect(tooMany.message).toMatch(/^'max_tokens' or 'max_completion_tokens' is too large: 500\./);
    const options = await chat(vllm(), { messages: user("hi"), stream_options: { include_usage: true } });
    expect([options.status, (await errorOf(options)).message]).toEqual([
      400,
      "Stream options can only be defined when `stream=True`.",
    ]);
  });
});
