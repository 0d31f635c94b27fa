import { describe, expect, it } from "vitest";
import type { AppError } from "@/lib/errors";
import { OllamaApi } from "./ollama-api";

/** An Ollama at a loopback address that answers each path with the given body (no network). */
function answering(bodies: Record<string, string>): OllamaApi {
  const fetchImpl = (async (url: URL | string) => {
    const body = bodies[new URL(url).pathname];
    return body === undefined ? new Response("not found", { status: 404 }) : new Response(body, { status: 200 });
  }) as typeof fetch;
  return new OllamaApi("http://127.0.0.1:11434", fetchImpl);
}

const failure = (promise: Promise<unknown>) =>
  promise.then(
    () => null,
    (error: unknown) => error as AppError,
  );

const show = JSON.stringify({
  capabilities: ["completion", "tools"],
  model_info: { "general.architecture": "llama", "llama.context_length": 8192 },
  details: { family: "llama", parameter_size: "3B", quantization_level: "Q4_K_M" },
  license: "MIT ",
});

describe("Ollama's answers are checked against what we read of them", () => {
  it("reads well-formed /api/tags, /api/show and /api/ps answers, with nulls where Ollama leaves fields out", async () => {
    const api = answering({
      "/api/tags": JSON.stringify({
        models: [{ name: "llama3.2", size: 2_000, details: { family: "llama", families: null, format: "gguf" } }],
      }),
      "/api/show": show,
      "/api/ps": JSON.stringify({
        models: [{ name: "llama3.2", size: 3_000, size_vram: null, expires_at: "2030-01-01T00:00:00Z" }],
      }),
    });
    expect(await api.listModels()).toEqual([
      expect.objectContaining({ name: "llama3.2", family: "llama", sizeBytes: 2_000, contextLength: 8192 }),
    ]);
    expect(await api.details("llama3.2")).toMatchObject({ license: "MIT", abilities: { tool_call: true } });
    expect(await api.loadedModels()).toEqual([
      {
        name: "llama3.2",
        sizeBytes: 3_000,
        vramBytes: null,
        expiresAt: Date.parse("2030-01-01T00:00:00Z"),
        contextLength: null,
      },
    ]);
  });

  it("a /api/tags answer of another shape is an upstream:ollama error naming the field, not a crash later", async () => {
    const error = await failure(answering({ "/api/tags": JSON.stringify({ models: [{ size: 1 }] }) }).installedNames());
    expect(error?.code).toBe("upstream:ollama");
    expect(error?.message).toMatch(/\/api\/tags .*models\.0\.name/);
    expect(error?.details).toMatchObject({ path: "/api/tags" });
  });

  it("a /api/show answer of another shape is an upstream:ollama error", async () => {
    const api = answering({ "/api/show": JSON.stringify({ capabilities: "tools" }) });
    const error = await failure(api.describe("llama3.2"));
    expect(error?.code).toBe("upstream:ollama");
    expect(error?.message).toMatch(/\/api\/show .*capabilities/);
  });

  it("a /api/ps answer of another shape is an upstream:ollama error", async () => {
    const error = await failure(answering({ "/api/ps": JSON.stringify({ models: {} }) }).loadedModels());
    expect(error?.code).toBe("upstream:ollama");
    expect(error?.message).toMatch(/\/api\/ps/);
  });

  it("an answer that is not JSON (another server at the address) is an upstream:ollama error", async () => {
    const error = await failure(answering({ "/api/tags": "<html>hello</html>" }).installedNames());
    expect(error?.code).toBe("upstream:ollama");
    expect(error?.message).toMatch(/not JSON/);
  });

  it("an empty answer to /api/tags is an upstream:ollama error too", async () => {
    const error = await failure(answering({ "/api/tags": "" }).installedNames());
    expect(error?.code).toBe("upstream:ollama");
  });
});
