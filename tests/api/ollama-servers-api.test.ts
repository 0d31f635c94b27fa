// Several Ollama servers (OLLAMA_BASE_URLS): the union model list, the admin's view of each server,
// pulls and deletes aimed at one server or all, and a run's calls going where its model is.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { POST as pull } from "@/app/api/admin/models/pull/route";
import { DELETE as deleteModel } from "@/app/api/admin/models/route";
import { GET as servers } from "@/app/api/admin/models/servers/route";
import { POST as chat } from "@/app/api/chat/route";
import { GET as health } from "@/app/api/health/route";
import { GET as listModels } from "@/app/api/models/route";
import { GET as settings } from "@/app/api/settings/route";
import { resetConfigForTests } from "@/lib/env-config";
import type { OllamaServerStatus } from "@/lib/llm/ollama-pool";
import type { PullEvent } from "@/lib/protocol/pull-events";
import { DEFAULT_MODELS, type FakeOllama, startFakeOllama } from "@/tests/fake-ollama/server";
import { setupFakeOllama } from "@/tests/fake-ollama/test-helpers";
import { client, setupAccounts, type TestClient } from "@/tests/support/accounts";
import { expectApiError, jsonRequest, newConversation, readEvents, setupAppEnv } from "@/tests/support/app-env";

// `first` has every model; `second` all but llama3.2; `down` is a port nobody listens on.
const first = setupFakeOllama();
setupAppEnv(first);
let second: FakeOllama;
let down = "";

beforeAll(async () => {
  second = await startFakeOllama();
  const closed = await startFakeOllama();
  down = closed.url;
  await closed.close();
  delete process.env.OLLAMA_BASE_URL;
  process.env.OLLAMA_BASE_URLS = `${first().url}, ${second.url},${down}`;
  resetConfigForTests();
});
afterAll(async () => {
  delete process.env.OLLAMA_BASE_URLS;
  resetConfigForTests();
  await second.close();
});
beforeEach(() => {
  second.reset();
  second.setModels(DEFAULT_MODELS.filter((model) => model.name !== "llama3.2:latest"));
});

const local = client();
type ListedModel = { name: string; servers?: string[] };

async function modelsAs(who: TestClient): Promise<ListedModel[]> {
  return ((await (await listModels(who.request("/api/models", "GET"))).json()) as { models: ListedModel[] }).models;
}

async function readPull(response: Response): Promise<PullEvent[]> {
  expect(response.status).toBe(200);
  return (await response.text())
    .split("\n")
    .filter(Boolean)
    .map((line) => JSON.parse(line) as PullEvent);
}

const pullRequests = (fake: FakeOllama) => fake.requests.filter((r) => r.path === "/api/pull");

describe("the model list with several servers", () => {
  it("is the union, each model tagged with the servers that have it; the down server takes nothing away", async () => {
    const models = await modelsAs(local);
    expect(models.map((m) => m.name)).toEqual(DEFAULT_MODELS.map((m) => m.name));
    const byName = Object.fromEntries(models.map((m) => [m.name, m.servers]));
    expect(byName["llama3.2:latest"]).toEqual([first().url]);
    expect(byName["qwen3:8b"]).toEqual([first().url, second.url]);
  });

  it("health says Ollama is reachable while one server is", async () => {
    const body = (await (await health(jsonRequest("/api/health", "GET"))).json()) as {
      ollama: { reachable: boolean; version: string };
    };
    expect(body.ollama).toMatchObject({ reachable: true, version: "0.12.10" });
  });

  it("the settings page names the servers and the variable that lists them", async () => {
    const body = (await (await settings(local.request("/api/settings", "GET"))).json()) as Record<string, unknown>;
    expect(body).toMatchObject({
      ollamaUrl: `${first().url}, ${second.url}, ${down}`,
      ollamaUrlEnv: "OLLAMA_BASE_URLS",
    });
  });
});

describe("GET /api/admin/models/servers", () => {
  it("shows each server's state, version, model count, loaded models and requests in flight", async () => {
    const response = await servers(local.request("/api/admin/models/servers", "GET"));
    const body = (await response.json()) as { servers: OllamaServerStatus[] };
    expect(body.servers.map((s) => [s.url, s.state, s.models])).toEqual([
      [first().url, "up", DEFAULT_MODELS.length],
      [second.url, "up", DEFAULT_MODELS.length - 1],
      [down, "down", null],
    ]);
    expect(body.servers[0]).toMatchObject({ version: "0.12.10", inFlight: 0, loaded: [] });
    expect(body.servers[2]?.error).toContain("Cannot reach Ollama");
  });
});

describe("pull and delete aim at one server or all", () => {
  it("pulls to one target server: only it downloads, and the list says it has the model", async () => {
    const events = await readPull(
      await pull(local.request("/api/admin/models/pull", "POST", { model: "phi3:mini", server: second.url })),
    );
    expect(events.at(-1)).toEqual({ type: "success", model: "phi3:mini" });
    expect(pullRequests(second)).toHaveLength(1);
    expect(pullRequests(first())).toHaveLength(0);
    expect((await modelsAs(local)).find((m) => m.name === "phi3:mini")?.servers).toEqual([second.url]);
  });

  it("pulls to all by default: one server after another, each event naming its server, one success at the end", async () => {
    second.setModels(DEFAULT_MODELS);
    const response = await pull(local.request("/api/admin/models/pull", "POST", { model: "mistral:7b" }));
    const events = await readPull(response);
    expect(pullRequests(first())).toHaveLength(1);
    expect(pullRequests(second)).toHaveLength(1);
    expect([...new Set(events.map((e) => e.server))]).toEqual([first().url, second.url, down]);
    // The down server fails the pull, after the two that answered have the model.
    expect(events.at(-1)).toMatchObject({ type: "error", code: "upstream:ollama_unreachable", server: down });
    expect((await modelsAs(local)).find((m) => m.name === "mistral:7b")?.servers).toEqual([first().url, second.url]);
  });

  it("refuses a server that is not configured (404), and nothing is pulled or deleted", async () => {
    const elsewhere = "http://127.0.0.1:1";
    await expectApiError(
      await pull(local.request("/api/admin/models/pull", "POST", { model: "phi3:mini", server: elsewhere })),
      404,
      "not_found:ollama_server",
    );
    await expectApiError(
      await deleteModel(
        local.request(`/api/admin/models?model=qwen3:8b&server=${encodeURIComponent(elsewhere)}`, "DELETE"),
      ),
      404,
      "not_found:ollama_server",
    );
    const touched = [...first().requests, ...second.requests].filter((r) => r.path !== "/api/tags");
    expect(touched.filter((r) => r.path === "/api/pull" || r.path === "/api/delete")).toHaveLength(0);
  });

  it("deletes from the one server named", async () => {
    const response = await deleteModel(
      local.request(`/api/admin/models?model=qwen3:8b&server=${encodeURIComponent(second.url)}`, "DELETE"),
    );
    expect(response.status).toBe(204);
    expect((await modelsAs(local)).find((m) => m.name === "qwen3:8b")?.servers).toEqual([first().url]);
  });
});

describe("a run with several servers", () => {
  it("goes to a server that has its model; one dying mid-stream errors the run, no other server takes over", async () => {
    const id = await newConversation("qwen3:8b");
    first().script({ when: { hasTools: true }, chunks: ["Partial ", "text"], dropConnection: true });
    const events = await readEvents(
      await chat(jsonRequest("/api/chat", "POST", { conversationId: id, message: "hi" })),
      (e) => e.event === "done",
    );
    expect(events.find((e) => e.event === "error")?.data.message).toContain("connection to Ollama broke");
    expect(
      first()
        .chatRequests()
        .filter((r) => r.body.tools),
    ).toHaveLength(1);
    expect(second.chatRequests().filter((r) => r.body.tools)).toHaveLength(0);
  });
});

describe("with accounts, the servers are for admins", () => {
  const { admin, user } = setupAccounts();

  it("a user's model list names no server, and the servers route is refused (403)", async () => {
    expect((await modelsAs(user)).every((m) => m.servers === undefined)).toBe(true);
    expect((await modelsAs(admin)).every((m) => (m.servers?.length ?? 0) > 0)).toBe(true);
    await expectApiError(await servers(user.request("/api/admin/models/servers", "GET")), 403, "forbidden:admin");
    await expectApiError(
      await pull(user.request("/api/admin/models/pull", "POST", { model: "phi3:mini", server: second.url })),
      403,
      "forbidden:admin",
    );
  });
});
