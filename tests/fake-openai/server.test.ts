// What each server answers besides chat: model lists, llama-server's /props and /health, API keys, unknown
// paths, and the fake's control API.
import { describe, expect, it } from "vitest";
import { chat, type Json, setupFakeOpenAI, user } from "./test-helpers";

const json = async (res: Response): Promise<Json> => res.json();

describe("fake openai (llama-server): model list, props, health", () => {
  const fake = setupFakeOpenAI({ flavor: "llama-server", models: [{ id: "qwen3-8b", contextLength: 8192 }] });

  it("lists its model in OpenAI's shape, owned_by llamacpp, with `created` the current time", async () => {
    const body = await json(await fetch(`${fake().url}/v1/models`));
    expect(body.object).toBe("list");
    expect(body.data).toEqual([
      expect.objectContaining({ id: "qwen3-8b", object: "model", owned_by: "llamacpp", meta: expect.any(Object) }),
    ]);
    expect(Math.abs(body.data[0].created - Date.now() / 1000)).toBeLessThan(5);
    expect(body.data[0]).not.toHaveProperty("max_model_len");
    expect(body.models[0]).toMatchObject({ name: "qwen3-8b", model: "qwen3-8b" });
  });

  it("tells its context size in /props default_generation_settings.n_ctx and is healthy at /health", async () => {
    const props = await json(await fetch(`${fake().url}/props`));
    expect(props.default_generation_settings.n_ctx).toBe(8192);
    expect(await json(await fetch(`${fake().url}/health`))).toEqual({ status: "ok" });
  });

  it("answers an unknown path with 404 File Not Found in its error shape", async () => {
    const res = await fetch(`${fake().url}/v1/nothing`);
    expect(res.status).toBe(404);
    expect(await json(res)).toEqual({ error: { message: "File Not Found", type: "not_found_error", code: 404 } });
  });

  it("as a router of several models, refuses an unknown model name with 400 and knows no n_ctx without ?model", async () => {
    fake().setModels([
      { id: "a", contextLength: 4096 },
      { id: "b", contextLength: 2048 },
    ]);
    const res = await chat(fake(), { model: "c", messages: user("hi") });
    expect(res.status).toBe(400);
    expect((await json(res)).error).toMatchObject({ code: 400, message: "model 'c' not found" });
    expect((await json(await fetch(`${fake().url}/props`))).default_generation_settings.n_ctx).toBe(0);
    expect((await json(await fetch(`${fake().url}/props?model=b`))).default_generation_settings.n_ctx).toBe(2048);
  });
});

describe("fake openai (vllm): model list and health", () => {
  const fake = setupFakeOpenAI({ flavor: "vllm" });

  it("lists each model with max_model_len, owned_by vllm, root and permission", async () => {
    const body = await json(await fetch(`${fake().url}/v1/models`));
    expect(body).toEqual({
      object: "list",
      data: [
        expect.objectContaining({
          id: "Qwen/Qwen3-8B",
          object: "model",
          created: expect.any(Number),
          owned_by: "vllm",
          root: "Qwen/Qwen3-8B",
          parent: null,
          max_model_len: 40960,
          permission: [expect.objectContaining({ object: "model_permission" })],
        }),
      ],
    });
  });

  it("answers /health with an empty 200 and has no /props", async () => {
    const health = await fetch(`${fake().url}/health`);
    expect([health.status, await health.text()]).toEqual([200, ""]);
    const props = await fetch(`${fake().url}/props`);
    expect([props.status, await json(props)]).toEqual([404, { detail: "Not Found" }]);
  });
});

describe("fake openai: API keys", () => {
  const llama = setupFakeOpenAI({ flavor: "llama-server", apiKey: "sekret" });
  const vllm = setupFakeOpenAI({ flavor: "vllm", apiKey: "sekret" });
  const bearer = (key: string) => ({ headers: { Authorization: `Bearer ${key}` } });

  it("llama-server refuses a wrong or missing key with 401 Invalid API Key, but not on its public /v1/models", async () => {
    for (const init of [{}, bearer("wrong")]) {
      const res = await chat(llama(), { messages: user("hi") }, init);
      expect(res.status).toBe(401);
      expect(await json(res)).toEqual({
        error: { message: "Invalid API Key", type: "authentication_error", code: 401 },
      });
    }
    expect((await fetch(`${llama().url}/props`)).status).toBe(401);
    expect((await fetch(`${llama().url}/v1/models`)).status).toBe(200);
    expect((await chat(llama(), { messages: user("hi") }, bearer("sekret"))).status).toBe(200);
    expect((await chat(llama(), { messages: user("hi") }, { headers: { "X-Api-Key": "sekret" } })).status).toBe(200);
  });

  it('vllm refuses a wrong or missing key on every /v1 path with 401 {"error":"Unauthorized"}', async () => {
    for (const path of ["/v1/models", "/v1/chat/completions"]) {
      const res = await fetch(`${vllm().url}${path}`, { method: path.endsWith("models") ? "GET" : "POST" });
      expect([res.status, await json(res)]).toEqual([401, { error: "Unauthorized" }]);
    }
    expect((await fetch(`${vllm().url}/v1/models`, bearer("wrong"))).status).toBe(401);
    expect((await fetch(`${vllm().url}/health`)).status).toBe(200);
    expect((await fetch(`${vllm().url}/v1/models`, bearer("sekret"))).status).toBe(200);
  });
});

describe("fake openai: control API", () => {
  const fake = setupFakeOpenAI({ flavor: "vllm" });

  it("queues replies through POST /__fake/script, matched by `when`, and records requests but not control calls", async () => {
    const replies = [{ when: { lastUserIncludes: "second" }, content: "for second" }, { content: "any" }];
    const queued = await fetch(`${fake().url}/__fake/script`, { method: "POST", body: JSON.stringify({ replies }) });
    expect(await json(queued)).toEqual({ queued: 2 });
    const second = await json(await chat(fake(), { messages: user("the second one") }));
    const first = await json(await chat(fake(), { messages: user("the first one") }));
    expect([second.choices[0].message.content, first.choices[0].message.content]).toEqual(["for second", "any"]);
    const recorded = await json(await fetch(`${fake().url}/__fake/requests`));
    expect(recorded.map((r: Json) => r.path)).toEqual(["/v1/chat/completions", "/v1/chat/completions"]);
    expect(recorded[0].body.messages[0].content).toBe("the second one");
  });

  it("replaces the models through POST /__fake/models and rejects a malformed list", async () => {
    const models = [{ id: "small", contextLength: 2048, tools: false }];
    expect((await fetch(`${fake().url}/__fake/models`, { method: "POST", body: JSON.stringify({ models }) })).ok).toBe(
      true,
    );
    expect((await json(await fetch(`${fake().url}/v1/models`))).data[0]).toMatchObject({
      id: "small",
      max_model_len: 2048,
    });
    const bad = await fetch(`${fake().url}/__fake/models`, { method: "POST", body: JSON.stringify({ models: [{}] }) });
    expect(bad.status).toBe(400);
  });
});
