import { describe, expect, it } from "vitest";
import { GET as details } from "@/app/api/admin/models/details/route";
import { GET as loaded } from "@/app/api/admin/models/loaded/route";
import { POST as pull } from "@/app/api/admin/models/pull/route";
import { DELETE as deleteModel } from "@/app/api/admin/models/route";
import { POST as unload } from "@/app/api/admin/models/unload/route";
import { GET as listModels } from "@/app/api/models/route";
import type { PullEvent } from "@/lib/protocol/pull-events";
import { setupFakeOllama } from "@/tests/fake-ollama/test-helpers";
import { client, setupAccounts, type TestClient } from "@/tests/support/accounts";
import { expectApiError, setupAppEnv } from "@/tests/support/app-env";

const fake = setupFakeOllama();
setupAppEnv(fake);

// Without accounts, the single local user may administer Ollama.
const local = client();
const pullAs = (who: TestClient, model: unknown) => pull(who.request("/api/admin/models/pull", "POST", { model }));
const withModel = (path: string, model: string) => `${path}?model=${encodeURIComponent(model)}`;

async function readPull(response: Response): Promise<PullEvent[]> {
  expect(response.status).toBe(200);
  expect(response.headers.get("content-type")).toContain("application/x-ndjson");
  const text = await response.text();
  return text
    .split("\n")
    .filter(Boolean)
    .map((line) => JSON.parse(line) as PullEvent);
}

async function installedNames(who: TestClient = local): Promise<string[]> {
  const body = (await (await listModels(who.request("/api/models", "GET"))).json()) as { models: { name: string }[] };
  return body.models.map((m) => m.name);
}

const ollamaCalls = (path: string) => fake().requests.filter((r) => r.path === path);

describe("pull", () => {
  it("streams the pull's progress (layers, bytes, totals) to success, and the model is at once in the model list", async () => {
    fake().setRegistry({ chunksPerLayer: 4 });
    const events = await readPull(await pullAs(local, "phi3:mini"));
    expect(events[0]).toEqual({ type: "status", status: "pulling manifest" });
    const progress = events.filter((e) => e.type === "progress");
    expect(progress.length).toBeGreaterThan(5);
    const completed = progress.map((p) => p.completed);
    expect(completed).toEqual([...completed].sort((a, b) => a - b));
    const last = progress.at(-1);
    expect(last?.layers).toHaveLength(5);
    expect(last?.completed).toBe(last?.total);
    expect(last?.total).toBe(last?.layers.reduce((sum, layer) => sum + layer.total, 0));
    expect(progress.every((p) => p.bytesPerSecond === null || p.bytesPerSecond >= 0)).toBe(true);
    expect(events.at(-1)).toEqual({ type: "success", model: "phi3:mini" });
    expect(await installedNames()).toContain("phi3:mini");
  });

  it("cancel: the client closing the stream aborts the request to Ollama, and nothing is installed", async () => {
    fake().setRegistry({ chunksPerLayer: 50, chunkDelayMs: 30 });
    const response = await pullAs(local, "mistral:7b");
    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    const decoder = new TextDecoder();
    let text = "";
    while (!text.includes('"progress"')) {
      const { value } = await reader.read();
      text += decoder.decode(value);
    }
    await reader.cancel();
    await expect.poll(() => ollamaCalls("/api/pull").at(-1)?.aborted).toBe(true);
    expect(await installedNames()).not.toContain("mistral:7b");
  });

  it("an unknown name ends the stream with not_found:registry_model in Ollama's words", async () => {
    const events = await readPull(await pullAs(local, "no-such-model:1b"));
    expect(events.at(-1)).toMatchObject({
      type: "error",
      code: "not_found:registry_model",
      message: expect.stringContaining("file does not exist"),
    });
  });

  it("an unreachable registry and a full disk end the stream with their own codes", async () => {
    fake().setRegistry({ unreachable: true });
    expect((await readPull(await pullAs(local, "phi3:mini"))).at(-1)).toMatchObject({
      type: "error",
      code: "upstream:registry_unreachable",
    });
    fake().setRegistry({ unreachable: false, diskFreeBytes: 1000 });
    expect((await readPull(await pullAs(local, "phi3:mini"))).at(-1)).toMatchObject({
      type: "error",
      code: "upstream:disk_full",
    });
    expect(await installedNames()).not.toContain("phi3:mini");
  });

  it("refuses a name that is no model name before asking Ollama", async () => {
    for (const bad of ["", "a b", "x".repeat(301), "../etc", "llama3.2\u0000", "モデル", 42]) {
      await expectApiError(await pullAs(local, bad), 400, "bad_request:validation");
    }
    expect(ollamaCalls("/api/pull")).toHaveLength(0);
  });

  it("a pulled model that replaced another of the same name is described afresh (the /api/show cache is dropped)", async () => {
    const first = (await (
      await details(local.request(withModel("/api/admin/models/details", "gemma:2b"), "GET"))
    ).json()) as {
      model: { capabilities: string[] };
    };
    expect(first.model.capabilities).not.toContain("tools");
    fake().setRegistry({
      models: [
        {
          name: "gemma:2b",
          family: "gemma",
          parameterSize: "3B",
          capabilities: ["completion", "tools"],
          contextLength: 8192,
        },
      ],
    });
    expect((await readPull(await pullAs(local, "gemma:2b"))).at(-1)?.type).toBe("success");
    const listed = (await (await listModels(local.request("/api/models", "GET"))).json()) as {
      models: { name: string; capabilities: string[] }[];
    };
    expect(listed.models.find((m) => m.name === "gemma:2b")?.capabilities).toContain("tools");
  });
});

describe("delete, details, loaded, unload", () => {
  it("deletes a model: 204, gone from the model list; again it is 404 not_found:model", async () => {
    const remove = () => deleteModel(local.request(withModel("/api/admin/models", "qwen3:8b"), "DELETE"));
    expect((await remove()).status).toBe(204);
    expect(await installedNames()).not.toContain("qwen3:8b");
    await expectApiError(await remove(), 404, "not_found:model");
  });

  it("details give family, parameters, quantization, context length, capabilities, licence and size; an unknown model is 404", async () => {
    const response = await details(local.request(withModel("/api/admin/models/details", "qwen3:8b"), "GET"));
    expect(((await response.json()) as { model: unknown }).model).toMatchObject({
      name: "qwen3:8b",
      family: "qwen3",
      parameterSize: "8.2B",
      quantization: "Q4_K_M",
      contextLength: 40960,
      capabilities: ["completion", "tools", "thinking"],
      license: "Fake model licence for tests.",
      sizeBytes: expect.any(Number),
    });
    const missing = await details(local.request(withModel("/api/admin/models/details", "ghost:1b"), "GET"));
    await expectApiError(missing, 404, "not_found:model");
  });

  it("lists what a chat loaded with its VRAM size and expiry, and unload frees it with keep_alive 0", async () => {
    const loadedNow = async () =>
      (
        (await (await loaded(local.request("/api/admin/models/loaded", "GET"))).json()) as {
          models: { name: string; vramBytes: number; expiresAt: number | null }[];
        }
      ).models;
    expect(await loadedNow()).toEqual([]);
    await fetch(`${fake().url}/api/chat`, {
      method: "POST",
      body: JSON.stringify({
        model: "llama3.2:latest",
        messages: [{ role: "user", content: "hi" }],
        keep_alive: "10m",
      }),
    }).then((r) => r.text());
    const [entry] = await loadedNow();
    expect(entry).toMatchObject({ name: "llama3.2:latest", vramBytes: expect.any(Number) });
    expect(entry?.expiresAt).toBeGreaterThan(Date.now() + 9 * 60_000);

    const response = await unload(local.request("/api/admin/models/unload", "POST", { model: "llama3.2:latest" }));
    expect(response.status).toBe(204);
    expect(ollamaCalls("/api/chat").at(-1)?.body).toEqual({ model: "llama3.2:latest", messages: [], keep_alive: 0 });
    expect(await loadedNow()).toEqual([]);
    const ghost = await unload(local.request("/api/admin/models/unload", "POST", { model: "ghost:1b" }));
    await expectApiError(ghost, 404, "not_found:model");
  });
});

describe("with accounts, only admins manage models", () => {
  const { admin, user } = setupAccounts();

  it("refuses every model route to a user (403 forbidden:admin) and to nobody (401), without touching Ollama", async () => {
    const calls = (who: TestClient) => [
      () => pullAs(who, "phi3:mini"),
      () => deleteModel(who.request(withModel("/api/admin/models", "gemma:2b"), "DELETE")),
      () => details(who.request(withModel("/api/admin/models/details", "gemma:2b"), "GET")),
      () => loaded(who.request("/api/admin/models/loaded", "GET")),
      () => unload(who.request("/api/admin/models/unload", "POST", { model: "gemma:2b" })),
    ];
    for (const call of calls(user)) await expectApiError(await call(), 403, "forbidden:admin");
    for (const call of calls(client())) await expectApiError(await call(), 401, "unauthorized:session");
    expect(fake().requests).toEqual([]);
    expect(await installedNames(admin)).toContain("gemma:2b");
  });

  it("lets an admin pull and delete", async () => {
    expect((await readPull(await pullAs(admin, "phi3:mini"))).at(-1)?.type).toBe("success");
    expect((await deleteModel(admin.request(withModel("/api/admin/models", "phi3:mini"), "DELETE"))).status).toBe(204);
  });
});
