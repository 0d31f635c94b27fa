import { afterEach, describe, expect, it } from "vitest";
import { POST as chat } from "@/app/api/chat/route";
import { GET as models } from "@/app/api/models/route";
import { GET as getSettings, PATCH as patchSettings } from "@/app/api/settings/route";
import { getLiveRuns } from "@/lib/chat/chat-service";
import { resetConfigForTests } from "@/lib/env-config";
import { setupFakeOllama } from "@/tests/fake-ollama/test-helpers";
import { expectApiError, jsonRequest, newConversation, readEvents, setupAppEnv } from "@/tests/support/app-env";

const fake = setupFakeOllama();
setupAppEnv(fake);

const patch = (body: unknown) => patchSettings(jsonRequest("/api/settings", "PATCH", body));
const read = async () =>
  (await (await getSettings(jsonRequest("/api/settings", "GET"))).json()) as {
    roles: Record<string, { value: string | null; source: string }>;
    searchBackend: { value: string; source: string };
    limits: Record<string, { value: number; source: string }>;
    ollama: { reachable: boolean; version: string };
    ollamaUrl: string;
    editable: boolean;
  };

afterEach(async () => {
  await patch({ roles: { general: null, fast: null } });
  delete process.env.MODEL_FAST;
  delete process.env.MAX_TOOL_ROUNDS;
  resetConfigForTests();
});

describe("settings", () => {
  it("shows the effective values, where each comes from, and checks Ollama", async () => {
    process.env.MAX_TOOL_ROUNDS = "3";
    resetConfigForTests();
    const settings = await read();
    expect(settings.ollama).toEqual({ reachable: true, version: "0.12.10" });
    expect(settings.ollamaUrl).toBe(fake().url);
    expect(settings.roles.general).toEqual({ value: null, source: "default" });
    expect(settings.searchBackend).toEqual({ value: "duckduckgo", source: "env" });
    expect(settings.limits.MAX_TOOL_ROUNDS).toEqual({ value: 3, source: "env" });
    expect(settings.limits.MAX_ITERATIONS).toEqual({ value: 50, source: "default" });
    expect(settings.editable).toBe(true);
  });

  it("sets model roles; the general role becomes the default model", async () => {
    expect((await patch({ roles: { general: "qwen3:8b" } })).status).toBe(200);
    expect((await read()).roles.general).toEqual({ value: "qwen3:8b", source: "settings" });
    const listed = (await (await models(jsonRequest("/api/models", "GET"))).json()) as { defaultModel: string };
    expect(listed.defaultModel).toBe("qwen3:8b");
  });

  it("refuses a model that is not installed, and a value the environment sets", async () => {
    expect(
      await expectApiError(await patch({ roles: { fast: "ghost:1b" } }), 400, "bad_request:unknown_model"),
    ).toContain("ghost:1b");
    process.env.MODEL_FAST = "gemma:2b";
    resetConfigForTests();
    const locked = await patch({ roles: { fast: "llama3.2:latest" } });
    expect(await expectApiError(locked, 400, "bad_request:env_setting")).toContain("MODEL_FAST");
    expect((await read()).roles.fast).toEqual({ value: "gemma:2b", source: "env" });
  });

  it("the tool loop uses the fast model and the answer the conversation's model, even when it calls no tool", async () => {
    await patch({ roles: { fast: "qwen3:8b" } });
    const conversationId = await newConversation("llama3.2:latest");
    await readEvents(await chat(jsonRequest("/api/chat", "POST", { conversationId, message: "hi" })));
    await expect.poll(() => getLiveRuns().forConversation(conversationId)).toBeUndefined();
    const [loop, synthesis] = fake()
      .chatRequests()
      .map((r) => r.body);
    expect(loop).toMatchObject({ model: "qwen3:8b", stream: true });
    expect(loop.tools?.length).toBeGreaterThan(0);
    expect(synthesis).toMatchObject({ model: "llama3.2:latest", stream: true });
    expect(synthesis.tools).toBeUndefined();
  });
});
