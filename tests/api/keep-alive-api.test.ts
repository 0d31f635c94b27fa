// keep_alive: how long Ollama keeps a model loaded after a request. A default (OLLAMA_KEEP_ALIVE)
// and one per role on the settings page, sent with every request on that role's model.
import { afterEach, describe, expect, it } from "vitest";
import { POST as chat } from "@/app/api/chat/route";
import { GET as getSettings, PATCH as patchSettings } from "@/app/api/settings/route";
import { resetConfigForTests } from "@/lib/env-config";
import { setupFakeOllama } from "@/tests/fake-ollama/test-helpers";
import {
  expectApiError,
  jsonRequest,
  newConversation,
  readEvents,
  setupAppEnv,
  waitIdle,
} from "@/tests/support/app-env";

const fake = setupFakeOllama();
setupAppEnv(fake);

const patch = (body: unknown) => patchSettings(jsonRequest("/api/settings", "PATCH", body));
const keepAliveSettings = async () =>
  (
    (await (await getSettings(jsonRequest("/api/settings", "GET"))).json()) as {
      keepAlive: { default: { value: string; source: string }; roles: Record<string, string | null> };
    }
  ).keepAlive;

async function chatOnce(model = "llama3.2:latest"): Promise<void> {
  const id = await newConversation(model);
  await readEvents(await chat(jsonRequest("/api/chat", "POST", { conversationId: id, message: "hi" })));
  await waitIdle(fake(), id);
}

/** The keep_alive of every chat request, by the model it went to. */
const sentByModel = () =>
  fake()
    .chatRequests()
    .map((r) => [r.body.model, r.body.keep_alive]);

afterEach(async () => {
  await patch({ roles: { fast: null }, keepAlive: { general: null, fast: null } });
  delete process.env.OLLAMA_KEEP_ALIVE;
  resetConfigForTests();
});

describe("keep_alive", () => {
  it("every request carries the default keep-alive, 5m unless OLLAMA_KEEP_ALIVE says otherwise", async () => {
    await chatOnce();
    // The answer and, after it, the title.
    expect(sentByModel()).toEqual([
      ["llama3.2:latest", "5m"],
      ["llama3.2:latest", "5m"],
    ]);
    expect((await keepAliveSettings()).default).toEqual({ value: "5m", source: "default" });
  });

  it("OLLAMA_KEEP_ALIVE in seconds goes out as a number (Ollama refuses a duration without unit), -1 too", async () => {
    for (const [env, sent] of [
      ["300", 300],
      ["-1", -1],
      ["1h30m", "1h30m"],
    ] as const) {
      process.env.OLLAMA_KEEP_ALIVE = env;
      resetConfigForTests();
      fake().reset();
      await chatOnce();
      expect(new Set(sentByModel().map(([, keepAlive]) => keepAlive))).toEqual(new Set([sent]));
    }
    expect((await keepAliveSettings()).default).toEqual({ value: "1h30m", source: "env" });
  });

  it("each role's keep-alive goes with the requests on its model: the fast loop's, and the conversation's for the answer and title", async () => {
    expect((await patch({ roles: { fast: "qwen3:8b" }, keepAlive: { general: "10m", fast: "0" } })).status).toBe(200);
    await chatOnce();
    const sent = sentByModel();
    expect(new Set(sent.map(([model]) => model))).toEqual(new Set(["qwen3:8b", "llama3.2:latest"]));
    const expected: Record<string, string | number> = { "qwen3:8b": 0, "llama3.2:latest": "10m" };
    expect(sent.every(([model, keepAlive]) => expected[model] === keepAlive)).toBe(true);
    expect((await keepAliveSettings()).roles).toMatchObject({ general: "10m", fast: "0", reasoning: null });
  });

  it("refuses a keep-alive Ollama would not read, storing nothing of the request", async () => {
    for (const bad of ["5 minutes", "1d", "forever", "--1", "5m".repeat(20)]) {
      const response = await patch({ roles: { fast: "qwen3:8b" }, keepAlive: { general: "1h", fast: bad } });
      await expectApiError(response, 400, bad.length > 32 ? "bad_request:validation" : "bad_request:keep_alive");
    }
    const settings = await keepAliveSettings();
    expect(settings.roles).toMatchObject({ general: null, fast: null });
    const roles = (
      (await (await getSettings(jsonRequest("/api/settings", "GET"))).json()) as {
        roles: Record<string, { value: string | null }>;
      }
    ).roles;
    expect(roles.fast?.value).toBeNull();
  });
});
