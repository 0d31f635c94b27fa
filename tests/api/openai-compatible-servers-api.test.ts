// OpenAI-compatible servers (OPENAI_COMPATIBLE_URLS) in health and the admin's servers view: each
// server's state and model count from its /v1/models, a refused key named by its server, the key in no answer.
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { GET as adminServers } from "@/app/api/admin/models/servers/route";
import { GET as health } from "@/app/api/health/route";
import { resetConfigForTests } from "@/lib/env-config";
import { fetchServerModels } from "@/lib/llm/openai-compatible/server-models";
import { setupFakeOllama } from "@/tests/fake-ollama/test-helpers";
import { jsonRequest, setupAppEnv } from "@/tests/support/app-env";

const fakeOllama = setupFakeOllama();
setupAppEnv(fakeOllama);

const KEY = "sk-vllm-secret-key";

/** Answers /v1/models (and /props for llama-server) as the named kind of server, on 127.0.0.1. */
async function modelServer(
  kind: "vllm" | "llama-server",
  key?: string,
): Promise<{ url: string; close(): Promise<void> }> {
  const server = http.createServer((request, response) => {
    if (key && request.headers.authorization !== `Bearer ${key}`) {
      response.writeHead(401, { "content-type": "application/json" });
      response.end(JSON.stringify({ error: { message: "Invalid API key", type: "authentication_error", code: 401 } }));
      return;
    }
    const send = (body: unknown) => {
      response.writeHead(200, { "content-type": "application/json" });
      response.end(JSON.stringify(body));
    };
    if (request.url === "/v1/models" && kind === "vllm") {
      return send({
        object: "list",
        data: [{ id: "qwen3", object: "model", created: 1, owned_by: "vllm", max_model_len: 32768 }],
      });
    }
    if (request.url === "/v1/models") {
      return send({ object: "list", data: [{ id: "qwen3", object: "model", created: 2, owned_by: "llamacpp" }] });
    }
    if (request.url === "/props" && kind === "llama-server") {
      return send({ default_generation_settings: { n_ctx: 4096 }, total_slots: 1 });
    }
    response.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

let vllm: Awaited<ReturnType<typeof modelServer>>;
let llama: Awaited<ReturnType<typeof modelServer>>;
let refusing: Awaited<ReturnType<typeof modelServer>>;

beforeAll(async () => {
  [vllm, llama, refusing] = await Promise.all([
    modelServer("vllm", KEY),
    modelServer("llama-server"),
    modelServer("vllm", "another-key"),
  ]);
  process.env.OPENAI_COMPATIBLE_URLS = `gpu=${vllm.url},llama=${llama.url},locked=${refusing.url}`;
  process.env.OPENAI_COMPATIBLE_KEYS = `gpu=${KEY},locked=wrong-key`;
  resetConfigForTests();
});
afterAll(async () => {
  delete process.env.OPENAI_COMPATIBLE_URLS;
  delete process.env.OPENAI_COMPATIBLE_KEYS;
  resetConfigForTests();
  await Promise.all([vllm.close(), llama.close(), refusing.close()]);
});

describe("OpenAI-compatible servers in health", () => {
  it("health shows each server's state and models, a refused key named by its server, and no key", async () => {
    const response = await health(jsonRequest("/api/health", "GET"));
    const text = await response.text();
    const body = JSON.parse(text) as {
      ok: boolean;
      openaiCompatible: { label: string; state: string; models: number; error?: string }[];
    };
    expect(body.ok).toBe(true);
    expect(body.openaiCompatible).toMatchObject([
      { label: "gpu", state: "up", models: 1 },
      { label: "llama", state: "up", models: 1 },
      { label: "locked", state: "key_refused", models: 0 },
    ]);
    expect(body.openaiCompatible[2]?.error).toMatch(/The server "locked" refused the API key \(HTTP 401\)/);
    expect(text).not.toContain(KEY);
    expect(text).not.toContain("wrong-key");
  });
});

describe("what a server has", () => {
  it("a model's context length comes from vLLM's max_model_len, else llama-server's /props n_ctx", async () => {
    expect((await fetchServerModels({ label: "gpu", baseUrl: vllm.url, apiKey: KEY }, 5000)).models).toMatchObject([
      { name: "qwen3", created: 1, contextLength: 32768 },
    ]);
    expect((await fetchServerModels({ label: "llama", baseUrl: llama.url }, 5000)).models).toMatchObject([
      { name: "qwen3", created: 2, contextLength: 4096 },
    ]);
  });

  it("a server that redirects is down: its key is not sent on to another address", async () => {
    let seen: string | undefined;
    const target = http.createServer((request, response) => {
      seen = request.headers.authorization;
      response.writeHead(200, { "content-type": "application/json" }).end('{"data":[]}');
    });
    await new Promise<void>((resolve) => target.listen(0, "127.0.0.1", resolve));
    const to = `http://127.0.0.1:${(target.address() as AddressInfo).port}`;
    const redirecting = http.createServer((_request, response) => {
      response.writeHead(302, { location: `${to}/v1/models` }).end();
    });
    await new Promise<void>((resolve) => redirecting.listen(0, "127.0.0.1", resolve));
    const from = `http://127.0.0.1:${(redirecting.address() as AddressInfo).port}/v1`;
    try {
      const look = await fetchServerModels({ label: "moved", baseUrl: from, apiKey: KEY }, 5000);
      expect(look.state).toBe("down");
      expect(seen).toBeUndefined();
    } finally {
      await Promise.all([
        new Promise((resolve) => target.close(resolve)),
        new Promise((resolve) => redirecting.close(resolve)),
      ]);
    }
  });
});

describe("the admin's servers view", () => {
  it("shows each OpenAI-compatible server's URL, state, models and whether it has a key, never the key", async () => {
    const response = await adminServers(jsonRequest("/api/admin/models/servers", "GET"));
    const text = await response.text();
    const body = JSON.parse(text) as { openaiCompatible: unknown[] };
    expect(body.openaiCompatible).toEqual([
      { label: "gpu", url: vllm.url, keySet: true, state: "up", models: 1, error: null },
      { label: "llama", url: llama.url, keySet: false, state: "up", models: 1, error: null },
      {
        label: "locked",
        url: refusing.url,
        keySet: true,
        state: "key_refused",
        models: 0,
        error: expect.stringMatching(/The server "locked" refused the API key/),
      },
    ]);
    expect(text).not.toContain(KEY);
    expect(text).not.toContain("wrong-key");
  });
});
