// GET /api/models with Ollama down (docs/architecture.md, "OpenAI-compatible servers"): the servers'
// models are still listed, with Ollama reported down in the API's error shape; with nothing to list
// it is Ollama's error, as before.
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { GET as listModels } from "@/app/api/models/route";
import { resetConfigForTests } from "@/lib/env-config";
import { setupFakeOllama } from "@/tests/fake-ollama/test-helpers";
import { type FakeOpenAI, startFakeOpenAI } from "@/tests/fake-openai/server";
import { expectApiError, jsonRequest, setupAppEnv } from "@/tests/support/app-env";

const fakeOllama = setupFakeOllama();
setupAppEnv(fakeOllama);

/** A port nothing listens on. */
const NO_OLLAMA = "http://127.0.0.1:9";

let vllm: FakeOpenAI;
beforeAll(async () => {
  vllm = await startFakeOpenAI({ flavor: "vllm", models: [{ id: "Qwen/Qwen3-8B", contextLength: 40960 }] });
});
afterAll(async () => {
  await vllm.close();
});
afterEach(() => {
  process.env.OLLAMA_BASE_URL = fakeOllama().url;
  delete process.env.OPENAI_COMPATIBLE_URLS;
  resetConfigForTests();
});

function configure({ ollama, servers }: { ollama: string; servers?: string }) {
  process.env.OLLAMA_BASE_URL = ollama;
  if (servers) process.env.OPENAI_COMPATIBLE_URLS = servers;
  else delete process.env.OPENAI_COMPATIBLE_URLS;
  resetConfigForTests();
}

interface Listing {
  models: { name: string; openaiCompatible?: { label: string; model: string } }[];
  defaultModel: string | null;
  visionModel: string | null;
  ollama: { reachable: boolean; error?: { code: string; message: string } };
}

const list = async () => {
  const response = await listModels(jsonRequest("/api/models", "GET"));
  return { status: response.status, body: (await response.json()) as Listing };
};

describe("GET /api/models with Ollama down", () => {
  it("lists the OpenAI-compatible servers' models and reports Ollama down, without its address", async () => {
    configure({ ollama: NO_OLLAMA, servers: `gpu=${vllm.url}/v1` });
    const { status, body } = await list();

    expect(status).toBe(200);
    expect(body.models.map((model) => [model.name, model.openaiCompatible])).toEqual([
      ["Qwen/Qwen3-8B@gpu", { label: "gpu", model: "Qwen/Qwen3-8B" }],
    ]);
    expect(body.defaultModel).toBe("Qwen/Qwen3-8B@gpu");
    expect(body.visionModel).toBeNull();
    expect(body.ollama).toMatchObject({ reachable: false, error: { code: "upstream:ollama_unreachable" } });
    expect(body.ollama.error?.message).toContain("Ollama");
    expect(JSON.stringify(body)).not.toContain("127.0.0.1:9");
  });

  it("is Ollama's error (502) when no server has a model to list", async () => {
    configure({ ollama: NO_OLLAMA });
    const response = await listModels(jsonRequest("/api/models", "GET"));
    await expectApiError(response, 502, "upstream:ollama_unreachable");
  });

  it("says Ollama is reachable when it lists, its models first", async () => {
    configure({ ollama: fakeOllama().url, servers: `gpu=${vllm.url}/v1` });
    const { status, body } = await list();

    expect(status).toBe(200);
    expect(body.ollama).toEqual({ reachable: true });
    const served = body.models.filter((model) => model.openaiCompatible).map((model) => model.name);
    expect(served).toEqual(["Qwen/Qwen3-8B@gpu"]);
    expect(body.models.length).toBeGreaterThan(served.length);
    expect(body.models[0]?.openaiCompatible).toBeUndefined();
  });
});
