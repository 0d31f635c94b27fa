import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { AppError } from "@/lib/errors";
import { DEFAULT_MODELS, type FakeOllama, startFakeOllama } from "@/tests/fake-ollama/server";
import { createOllamaLLM } from "./ollama-llm";
import { BACKOFF_FIRST_MS, BACKOFF_MAX_MS, OllamaPool } from "./ollama-pool";
import type { ChatMessage, LLM } from "./types";

/**
 * Three Ollama servers on loopback: `first` has every model (and is made slow or broken per test),
 * `second` has all but llama3.2, and `DOWN` (a port closed again) answers nobody.
 */
let DOWN = "";
let first: FakeOllama;
let second: FakeOllama;
let clock = 1_000_000;
const now = () => clock;

beforeAll(async () => {
  [first, second] = await Promise.all([startFakeOllama(), startFakeOllama()]);
  const closed = await startFakeOllama();
  DOWN = closed.url;
  await closed.close();
});
afterAll(async () => {
  await Promise.all([first.close(), second.close()]);
});
beforeEach(() => {
  first.reset();
  second.reset();
  second.setModels(DEFAULT_MODELS.filter((model) => model.name !== "llama3.2:latest"));
  clock = 1_000_000;
});

function llmOn(pool: OllamaPool, model: string, failoverTimeoutMs = 10_000): LLM {
  return createOllamaLLM({
    baseUrl: pool.urls[0] ?? "",
    route: (name) => pool.route(name),
    model,
    abilities: { tool_call: true, json_mode: true, thinking: false, vision: false },
    modelContextLength: null,
    numCtx: 4096,
    timeoutMs: 30_000,
    failoverTimeoutMs,
  });
}

const question: ChatMessage[] = [{ role: "user", content: "hello" }];

async function drain(llm: LLM, signal?: AbortSignal): Promise<string> {
  let text = "";
  for await (const part of llm.streamChat(question, { signal })) if (part.type === "text") text += part.text;
  return text;
}

const load = (fake: FakeOllama, model: string) =>
  fetch(`${fake.url}/api/chat`, {
    method: "POST",
    body: JSON.stringify({ model, messages: [], keep_alive: "10m" }),
  }).then((response) => response.text());

describe("the model list is the union of the servers'", () => {
  it("lists each model once, tagged with the servers that have it; a down server takes nothing away", async () => {
    const pool = new OllamaPool([DOWN, first.url, second.url], { now });
    const models = await pool.listModels();
    const servers = Object.fromEntries(models.map((model) => [model.name, model.servers]));
    expect(servers["llama3.2:latest"]).toEqual([first.url]);
    expect(servers["qwen3:8b"]).toEqual([first.url, second.url]);
    expect(models).toHaveLength(DEFAULT_MODELS.length);
    expect(await pool.installedNames()).toContain("llama3.2:latest");
  });

  it("fails as the one server would when every server is down", async () => {
    const pool = new OllamaPool([DOWN, "http://127.0.0.1:7"], { now });
    await expect(pool.listModels()).rejects.toMatchObject({ code: "upstream:ollama_unreachable" });
  });
});

describe("a chat goes to a server that has the model", () => {
  it("skips the down server and the one without the model", async () => {
    const pool = new OllamaPool([DOWN, second.url, first.url], { now });
    expect(await drain(llmOn(pool, "llama3.2"))).toContain("hello");
    expect(first.chatRequests()).toHaveLength(1);
    expect(second.chatRequests()).toHaveLength(0);
  });

  it("prefers a server where the model is loaded", async () => {
    await load(second, "qwen3:8b");
    const pool = new OllamaPool([first.url, second.url], { now });
    await drain(llmOn(pool, "qwen3:8b"));
    expect(second.chatRequests().filter((r) => r.body.messages.length > 0)).toHaveLength(1);
    expect(first.chatRequests()).toHaveLength(0);
  });

  it("then the one with the fewest requests in flight", async () => {
    const pool = new OllamaPool([first.url, second.url], { now });
    first.script({ hang: true });
    const stop = new AbortController();
    const slow = drain(llmOn(pool, "qwen3:8b"), stop.signal).catch((error: unknown) => error);
    await first.waitForRequests(1);
    expect(pool.servers.map((server) => server.inFlight)).toEqual([1, 0]);
    await drain(llmOn(pool, "qwen3:8b"));
    expect(second.chatRequests()).toHaveLength(1);
    stop.abort();
    await slow;
    expect(pool.servers.map((server) => server.inFlight)).toEqual([0, 0]);
  });

  it("says the model is not installed when no server has it", async () => {
    first.setModels(DEFAULT_MODELS.filter((model) => model.name !== "llama3.2:latest"));
    const pool = new OllamaPool([first.url, second.url], { now });
    await expect(drain(llmOn(pool, "llama3.2"))).rejects.toMatchObject({ code: "bad_request:unknown_model" });
  });
});

describe("a server failing before its reply starts hands the chat to the next", () => {
  it("on a 5xx before the first byte", async () => {
    first.script({ errorStatus: 503, error: "server busy, please try again.  maximum pending requests exceeded" });
    const pool = new OllamaPool([first.url, second.url], { now });
    expect(await drain(llmOn(pool, "qwen3:8b"))).toContain("hello");
    expect(first.chatRequests()).toHaveLength(1);
    expect(second.chatRequests()).toHaveLength(1);
  });

  it("on a refused connection (a server gone since it was last seen)", async () => {
    const gone = new OllamaPool([DOWN, second.url], { now });
    const llm = createOllamaLLM({
      baseUrl: DOWN,
      route: async () => gone.servers,
      model: "qwen3:8b",
      abilities: { tool_call: true, json_mode: true, thinking: false, vision: false },
      modelContextLength: null,
      numCtx: 4096,
    });
    expect(await drain(llm)).toContain("hello");
    expect(second.chatRequests()).toHaveLength(1);
    expect(gone.servers[0]?.state).toBe("down");
  });

  it("on a server that does not start answering within OLLAMA_FAILOVER_TIMEOUT_S", async () => {
    first.script({ delayMs: 20_000 });
    const pool = new OllamaPool([first.url, second.url], { now });
    expect(await drain(llmOn(pool, "qwen3:8b", 200))).toContain("hello");
    await expect.poll(() => first.chatRequests()[0]?.aborted).toBe(true);
    expect(second.chatRequests()).toHaveLength(1);
  });

  it("waits for the last candidate as long as the call may take", async () => {
    first.script({ delayMs: 600, content: "hello, late" });
    const pool = new OllamaPool([first.url], { now });
    expect(await drain(llmOn(pool, "qwen3:8b", 100))).toContain("hello");
  });
});

describe("once a reply has started, the chat stays with its server", () => {
  it("a server dying mid-stream is the chat's error, never a second server's reply", async () => {
    first.script({ chunks: ["Partly ", "said"], dropConnection: true });
    const pool = new OllamaPool([first.url, second.url], { now });
    await expect(drain(llmOn(pool, "qwen3:8b"))).rejects.toMatchObject({ code: "upstream:ollama_connection" });
    expect(second.chatRequests()).toHaveLength(0);
  });

  it("an error line mid-stream likewise", async () => {
    first.script({ chunks: ["Partly"], midStreamError: "model runner has unexpectedly stopped" });
    const pool = new OllamaPool([first.url, second.url], { now });
    await expect(drain(llmOn(pool, "qwen3:8b"))).rejects.toBeInstanceOf(AppError);
    expect(second.chatRequests()).toHaveLength(0);
  });
});

describe("health with backoff", () => {
  it("a down server is retried after 1 s, doubling up to 60 s", async () => {
    const pool = new OllamaPool([DOWN, first.url], { now });
    const down = pool.servers[0];
    const waits: number[] = [];
    for (let failure = 0; failure < 9; failure++) {
      down?.failed(new AppError("upstream:ollama_unreachable", "Cannot reach Ollama (ECONNREFUSED)."));
      waits.push((down?.retryAt ?? 0) - clock);
    }
    expect(waits).toEqual([1000, 2000, 4000, 8000, 16_000, 32_000, 60_000, 60_000, 60_000]);
    expect([BACKOFF_FIRST_MS, BACKOFF_MAX_MS]).toEqual([1000, 60_000]);
  });

  it("a server that comes back is used again after its backoff probe", async () => {
    const back = await startFakeOllama();
    const port = Number(new URL(back.url).port);
    const pool = new OllamaPool([back.url, second.url], { now });
    await back.close();
    await drain(llmOn(pool, "qwen3:8b"));
    expect(pool.servers[0]?.state).toBe("down");
    expect(second.chatRequests()).toHaveLength(1);

    const again = await startFakeOllama({ port });
    try {
      // Still within its backoff: not asked, not probed.
      await drain(llmOn(pool, "qwen3:8b"));
      expect(again.requests).toHaveLength(0);
      clock += BACKOFF_FIRST_MS;
      await pool.route("qwen3:8b");
      await pool.servers[0]?.probed();
      expect(again.requests.map((r) => r.path)).toEqual(["/api/version"]);
      expect(pool.servers[0]?.state).toBe("up");
      // (`second` has qwen3 loaded now, so another model shows the choice.)
      await drain(llmOn(pool, "gemma:2b"));
      expect(again.chatRequests()).toHaveLength(1);
    } finally {
      await again.close();
    }
  });

  it("asking for the admin view probes a down server whose backoff has passed, and shows it back with its models", async () => {
    const back = await startFakeOllama();
    const port = Number(new URL(back.url).port);
    const pool = new OllamaPool([back.url, first.url], { now });
    await back.close();
    expect((await pool.status())[0]).toMatchObject({ state: "down", models: null });
    const again = await startFakeOllama({ port });
    try {
      expect((await pool.status())[0]).toMatchObject({ state: "down" });
      clock += BACKOFF_FIRST_MS;
      expect((await pool.status())[0]).toMatchObject({ state: "up", models: DEFAULT_MODELS.length, error: null });
    } finally {
      await again.close();
    }
  });

  it("the admin view shows each server's state, version, models, loaded models and load", async () => {
    await load(second, "gemma:2b");
    const pool = new OllamaPool([first.url, DOWN, second.url], { now });
    const status = await pool.status();
    expect(status.map((server) => [server.url, server.state])).toEqual([
      [first.url, "up"],
      [DOWN, "down"],
      [second.url, "up"],
    ]);
    expect(status[0]).toMatchObject({ version: "0.12.10", models: DEFAULT_MODELS.length, loaded: [], inFlight: 0 });
    expect(status[1]).toMatchObject({ version: null, models: null, retryAt: clock + BACKOFF_FIRST_MS });
    expect(status[1]?.error).toContain("ECONNREFUSED");
    expect(status[2]).toMatchObject({ models: DEFAULT_MODELS.length - 1, loaded: ["gemma:2b"] });
  });
});

describe("delete and unload act on the named server, else on every one that has the model", () => {
  it("deletes from one server", async () => {
    const pool = new OllamaPool([first.url, second.url], { now });
    await pool.deleteModel("qwen3:8b", second.url);
    expect((await pool.listModels()).find((m) => m.name === "qwen3:8b")?.servers).toEqual([first.url]);
  });

  it("deletes from all, a server without it skipped", async () => {
    const pool = new OllamaPool([first.url, second.url], { now });
    await pool.deleteModel("llama3.2:latest");
    expect((await pool.listModels()).map((m) => m.name)).not.toContain("llama3.2:latest");
    await expect(pool.deleteModel("llama3.2:latest")).rejects.toMatchObject({ code: "not_found:model" });
  });

  it("refuses a server that is not configured before anything is sent", async () => {
    const pool = new OllamaPool([first.url, second.url], { now });
    expect(() => pool.targets("http://127.0.0.1:1")).toThrow(/No Ollama server/);
    await expect(pool.deleteModel("qwen3:8b", "http://127.0.0.1:1")).rejects.toMatchObject({
      code: "not_found:ollama_server",
    });
    expect([...first.requests, ...second.requests].filter((r) => r.path === "/api/delete")).toHaveLength(0);
  });
});
