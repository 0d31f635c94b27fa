// The fake's non-chat endpoints and its control API, checked on the wire with plain fetch.
import { describe, expect, it } from "vitest";
import { startFakeOllama } from "./server";
import { chat, post, readNdjson, setupFakeOllama, userMessage } from "./test-helpers";

const fake = setupFakeOllama();

describe("fake ollama: informational endpoints", () => {
  it("answers GET / with the plain text 'Ollama is running'", async () => {
    const res = await fetch(`${fake().url}/`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^text\/plain/);
    expect(await res.text()).toBe("Ollama is running");
  });

  it("reports the server version at /api/version", async () => {
    const res = await fetch(`${fake().url}/api/version`);
    expect(res.headers.get("content-type")).toBe("application/json; charset=utf-8");
    expect(await res.json()).toEqual({ version: "0.12.10" });
  });

  it("lists models at /api/tags with details but without capabilities", async () => {
    const body = (await (await fetch(`${fake().url}/api/tags`)).json()) as { models: Record<string, unknown>[] };
    expect(body.models.map((m) => m.name)).toEqual(["llama3.2:latest", "qwen3:8b", "gemma:2b", "llava:7b"]);
    const llama = body.models[0];
    expect(llama).toMatchObject({
      name: "llama3.2:latest",
      model: "llama3.2:latest",
      details: { format: "gguf", family: "llama", families: ["llama"], parameter_size: "3.2B" },
    });
    expect(llama?.digest).toMatch(/^[0-9a-f]{64}$/);
    expect(typeof llama?.size).toBe("number");
    expect(Number.isNaN(Date.parse(String(llama?.modified_at)))).toBe(false);
    expect(llama).not.toHaveProperty("capabilities");
  });

  it("resolves a name without a tag to :latest in /api/show and reports capabilities and <arch>.context_length", async () => {
    const res = await post(`${fake().url}/api/show`, { model: "llama3.2" });
    expect(res.status).toBe(200);
    const body = (await res.json()) as Record<string, unknown>;
    expect(body.capabilities).toEqual(["completion", "tools"]);
    expect(body.model_info).toMatchObject({ "general.architecture": "llama", "llama.context_length": 131072 });
    expect(body.details).toMatchObject({ family: "llama", parameter_size: "3.2B" });
    expect(typeof body.template).toBe("string");
    expect(typeof body.parameters).toBe("string");
  });

  it("keys context_length by general.architecture for every model", async () => {
    const body = (await (await post(`${fake().url}/api/show`, { model: "qwen3:8b" })).json()) as {
      model_info: Record<string, unknown>;
      capabilities: string[];
    };
    expect(body.model_info["general.architecture"]).toBe("qwen3");
    expect(body.model_info["qwen3.context_length"]).toBe(40960);
    expect(body.capabilities).toContain("thinking");
  });

  it("accepts the legacy name field in /api/show", async () => {
    const res = await post(`${fake().url}/api/show`, { name: "gemma:2b" });
    expect(res.status).toBe(200);
    expect(((await res.json()) as { capabilities: string[] }).capabilities).toEqual(["completion"]);
  });

  it("answers /api/show for an unknown model with 404 model 'x' not found", async () => {
    const res = await post(`${fake().url}/api/show`, { model: "nope:1b" });
    expect(res.status).toBe(404);
    expect(await res.json()).toEqual({ error: "model 'nope:1b' not found" });
  });

  it("deletes a model with DELETE /api/delete (200, empty body): gone from /api/tags and /api/show; an unknown one is a 404", async () => {
    const del = (model: string) =>
      fetch(`${fake().url}/api/delete`, {
        method: "DELETE",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ model }),
      });
    const res = await del("qwen3:8b");
    expect(res.status).toBe(200);
    expect(await res.text()).toBe("");
    const tags = (await (await fetch(`${fake().url}/api/tags`)).json()) as { models: { name: string }[] };
    expect(tags.models.map((m) => m.name)).not.toContain("qwen3:8b");
    expect((await post(`${fake().url}/api/show`, { model: "qwen3:8b" })).status).toBe(404);
    const again = await del("qwen3:8b");
    expect(again.status).toBe(404);
    expect(await again.json()).toEqual({ error: "model 'qwen3:8b' not found" });
  });

  it("answers /api/show without a body with 400 missing request body", async () => {
    const res = await fetch(`${fake().url}/api/show`, { method: "POST" });
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({ error: "missing request body" });
  });

  it("lists a model in /api/ps once it served a chat, with the requested num_ctx as context_length", async () => {
    expect(await (await fetch(`${fake().url}/api/ps`)).json()).toEqual({ models: [] });
    await readNdjson(
      await chat(fake(), { model: "qwen3:8b", messages: userMessage("hi"), options: { num_ctx: 8192 } }),
    );
    const body = (await (await fetch(`${fake().url}/api/ps`)).json()) as { models: Record<string, unknown>[] };
    expect(body.models).toHaveLength(1);
    expect(body.models[0]).toMatchObject({ name: "qwen3:8b", context_length: 8192 });
    expect(body.models[0]).toHaveProperty("expires_at");
    expect(body.models[0]).toHaveProperty("size_vram");
  });

  it("answers unknown routes like gin: 404 '404 page not found' as text", async () => {
    const res = await fetch(`${fake().url}/api/nothing`);
    expect(res.status).toBe(404);
    expect(await res.text()).toBe("404 page not found");
  });
});

describe("fake ollama: recording and control API", () => {
  it("records every API request with method, path, parsed body and headers", async () => {
    await readNdjson(await chat(fake(), { model: "llama3.2", messages: userMessage("hi") }));
    await fetch(`${fake().url}/api/tags`);
    expect(fake().requests.map((r) => `${r.method} ${r.path}`)).toEqual(["POST /api/chat", "GET /api/tags"]);
    const [recorded] = fake().chatRequests();
    expect(recorded?.body).toEqual({ model: "llama3.2", messages: [{ role: "user", content: "hi" }] });
    expect(recorded?.headers["content-type"]).toBe("application/json");
    expect(recorded?.finished).toBe(true);
    expect(recorded?.aborted).toBe(false);
  });

  it("queues replies through POST /__fake/script and consumes them in order", async () => {
    const res = await post(`${fake().url}/__fake/script`, { replies: [{ content: "first" }, { content: "second" }] });
    expect(await res.json()).toEqual({ queued: 2 });
    const answer = async () =>
      (await readNdjson(await chat(fake(), { model: "llama3.2", messages: userMessage("x") })))
        .map((c) => c.message?.content ?? "")
        .join("");
    expect(await answer()).toBe("first");
    expect(await answer()).toBe("second");
    expect(await answer()).toContain("**Echo:** x");
  });

  it("consumes a reply with `when` only by a request that matches it", async () => {
    fake().script({ when: { hasTools: false }, content: "synthesis" }, { content: "tool loop" });
    const withTools = {
      model: "llama3.2",
      messages: userMessage("q"),
      tools: [{ type: "function", function: { name: "t", parameters: { type: "object", properties: {} } } }],
    };
    const first = await readNdjson(await chat(fake(), withTools));
    expect(first.map((c) => c.message?.content).join("")).toBe("tool loop");
    const second = await readNdjson(await chat(fake(), { model: "llama3.2", messages: userMessage("q") }));
    expect(second.map((c) => c.message?.content).join("")).toBe("synthesis");
  });

  it("consumes a reply with a `match` function only by a request that matches it", async () => {
    fake().script({ match: (req) => req.model === "gemma:2b", content: "for gemma" });
    const other = await readNdjson(await chat(fake(), { model: "llama3.2", messages: userMessage("a") }));
    expect(other.map((c) => c.message?.content).join("")).toContain("**Echo:**");
    const gemma = await readNdjson(await chat(fake(), { model: "gemma:2b", messages: userMessage("a") }));
    expect(gemma.map((c) => c.message?.content).join("")).toBe("for gemma");
  });

  it("rejects POST /__fake/script without a replies array", async () => {
    const res = await post(`${fake().url}/__fake/script`, { content: "x" });
    expect(res.status).toBe(400);
  });

  it("returns recorded requests from GET /__fake/requests without recording control calls", async () => {
    await readNdjson(await chat(fake(), { model: "llama3.2", messages: userMessage("hi") }));
    const recorded = (await (await fetch(`${fake().url}/__fake/requests`)).json()) as { path: string; body: unknown }[];
    expect(recorded.map((r) => r.path)).toEqual(["/api/chat"]);
    expect(recorded[0]?.body).toMatchObject({ model: "llama3.2" });
  });

  it("replaces the model catalogue through POST /__fake/models", async () => {
    const models = [
      { name: "tiny:1b", family: "tiny", parameterSize: "1B", capabilities: ["completion"], contextLength: 2048 },
    ];
    expect((await post(`${fake().url}/__fake/models`, { models })).status).toBe(200);
    const tags = (await (await fetch(`${fake().url}/api/tags`)).json()) as { models: { name: string }[] };
    expect(tags.models.map((m) => m.name)).toEqual(["tiny:1b"]);
    const show = (await (await post(`${fake().url}/api/show`, { model: "tiny:1b" })).json()) as {
      model_info: Record<string, unknown>;
    };
    expect(show.model_info["tiny.context_length"]).toBe(2048);
    expect((await post(`${fake().url}/__fake/models`, { models: [{ name: 1 }] })).status).toBe(400);
  });

  it("clears queue, requests and models through POST /__fake/reset", async () => {
    fake().script({ content: "leftover" });
    fake().setModels([]);
    await fetch(`${fake().url}/api/tags`);
    expect((await post(`${fake().url}/__fake/reset`, {})).status).toBe(200);
    expect(fake().requests).toHaveLength(0);
    const chunks = await readNdjson(await chat(fake(), { model: "llama3.2", messages: userMessage("z") }));
    expect(chunks.map((c) => c.message?.content).join("")).toContain("**Echo:** z");
  });

  it("resolves waitForRequests once enough chat requests arrived, and rejects after its timeout", async () => {
    const waiting = fake().waitForRequests(2, 2000);
    await readNdjson(await chat(fake(), { model: "llama3.2", messages: userMessage("1") }));
    await readNdjson(await chat(fake(), { model: "llama3.2", messages: userMessage("2") }));
    await expect(waiting).resolves.toBeUndefined();
    await expect(fake().waitForRequests(3, 50)).rejects.toThrow(/expected 3 \/api\/chat requests/);
  });

  it("answers with the default responder set by setDefaultResponder when nothing is scripted", async () => {
    fake().setDefaultResponder(() => ({ content: "custom" }));
    const chunks = await readNdjson(await chat(fake(), { model: "llama3.2", messages: userMessage("q") }));
    expect(chunks.map((c) => c.message?.content).join("")).toBe("custom");
  });
});

describe("fake ollama: lifecycle", () => {
  it("binds to 127.0.0.1 on a random port and closes even while a request hangs", async () => {
    const own = await startFakeOllama();
    expect(own.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    own.script({ hang: true });
    const pending = chat(own, { model: "llama3.2", messages: userMessage("q") }).catch(() => "closed");
    await own.waitForRequests(1);
    await own.close();
    expect(await pending).toBe("closed");
    expect(own.chatRequests()[0]?.aborted).toBe(true);
  });
});
