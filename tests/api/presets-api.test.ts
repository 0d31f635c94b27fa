import { describe, expect, it } from "vitest";
import { GET as getOne, PATCH as patchConversation } from "@/app/api/conversations/[id]/route";
import { POST as createConversation } from "@/app/api/conversations/route";
import { DELETE as deletePreset, PATCH as patchPreset } from "@/app/api/presets/[id]/route";
import { POST as createPreset, GET as listPresets } from "@/app/api/presets/route";
import { setupFakeOllama } from "@/tests/fake-ollama/test-helpers";
import { setupAccounts, type TestClient } from "@/tests/support/accounts";
import { expectApiError, params, setupAppEnv } from "@/tests/support/app-env";

const fake = setupFakeOllama();
setupAppEnv(fake);

const { admin: alice, user: bob } = setupAccounts({ admin: "alice", user: "bob" });

interface Preset {
  id: string;
  name: string;
  model: string | null;
  settings: Record<string, unknown>;
  isDefault: boolean;
}

async function newPreset(who: TestClient, body: Record<string, unknown>): Promise<Preset> {
  const response = await createPreset(who.request("/api/presets", "POST", body));
  expect(response.status).toBe(201);
  return ((await response.json()) as { preset: Preset }).preset;
}

async function presetsOf(who: TestClient): Promise<Preset[]> {
  return ((await (await listPresets(who.request("/api/presets", "GET"))).json()) as { presets: Preset[] }).presets;
}

async function newChat(who: TestClient, body: Record<string, unknown> = {}) {
  const response = await createConversation(who.request("/api/conversations", "POST", body));
  return {
    response,
    conversation: response.ok
      ? ((await response.json()) as { conversation: { id: string; model: string | null; settings: unknown } })
          .conversation
      : null,
  };
}

describe("presets: CRUD", () => {
  it("creates, lists, changes and deletes a user's presets", async () => {
    const preset = await newPreset(alice, {
      name: "  Translator ",
      model: "qwen3:8b",
      settings: { instructions: "Translate into French.", temperature: 0.2 },
    });
    expect(preset).toMatchObject({
      name: "Translator",
      model: "qwen3:8b",
      settings: { instructions: "Translate into French.", temperature: 0.2 },
      isDefault: false,
    });
    expect((await presetsOf(alice)).map((p) => p.id)).toContain(preset.id);

    const changed = await patchPreset(
      alice.request(`/api/presets/${preset.id}`, "PATCH", { name: "French", settings: { seed: 3 } }),
      params({ id: preset.id }),
    );
    expect(((await changed.json()) as { preset: Preset }).preset).toMatchObject({
      name: "French",
      model: "qwen3:8b",
      settings: { seed: 3 },
    });

    const deleted = await deletePreset(alice.request(`/api/presets/${preset.id}`, "DELETE"), params({ id: preset.id }));
    expect(deleted.status).toBe(204);
    expect((await presetsOf(alice)).map((p) => p.id)).not.toContain(preset.id);
  });

  it.each([
    ["an empty name", { name: "   " }],
    ["instructions over MAX_INSTRUCTIONS_CHARS", { name: "x", settings: { instructions: "a".repeat(8001) } }],
    ["a negative temperature", { name: "x", settings: { temperature: -1 } }],
    ["an unknown field", { name: "x", owner: "bob" }],
  ])("refuses %s with a 400 and stores nothing", async (_name, body) => {
    const before = await presetsOf(alice);
    await expectApiError(
      await createPreset(alice.request("/api/presets", "POST", body)),
      400,
      "bad_request:validation",
    );
    expect(await presetsOf(alice)).toEqual(before);
  });

  it("keeps at most one default preset per user", async () => {
    const first = await newPreset(alice, { name: "A", isDefault: true });
    const second = await newPreset(alice, { name: "B", isDefault: true });
    const defaults = (await presetsOf(alice)).filter((p) => p.isDefault).map((p) => p.id);
    expect(defaults).toEqual([second.id]);
    await patchPreset(
      alice.request(`/api/presets/${first.id}`, "PATCH", { isDefault: true }),
      params({ id: first.id }),
    );
    expect((await presetsOf(alice)).filter((p) => p.isDefault).map((p) => p.id)).toEqual([first.id]);
    for (const preset of [first, second]) {
      await deletePreset(alice.request(`/api/presets/${preset.id}`, "DELETE"), params({ id: preset.id }));
    }
  });
});

describe("presets belong to their user", () => {
  it("another user's preset is a 404 to read into a chat, change or delete, and is not listed", async () => {
    const secret = await newPreset(alice, { name: "Alice's", settings: { instructions: "secret" } });
    expect((await presetsOf(bob)).map((p) => p.id)).not.toContain(secret.id);
    await expectApiError(
      await patchPreset(bob.request(`/api/presets/${secret.id}`, "PATCH", { name: "mine" }), params({ id: secret.id })),
      404,
      "not_found:preset",
    );
    await expectApiError(
      await deletePreset(bob.request(`/api/presets/${secret.id}`, "DELETE"), params({ id: secret.id })),
      404,
      "not_found:preset",
    );
    const { response } = await newChat(bob, { presetId: secret.id });
    await expectApiError(response, 404, "not_found:preset");
    expect((await presetsOf(alice)).find((p) => p.id === secret.id)).toMatchObject({
      name: "Alice's",
      settings: { instructions: "secret" },
    });
  });

  it("another user's conversation is a 404 to read or change the settings of", async () => {
    const { conversation } = await newChat(alice);
    const id = conversation?.id ?? "";
    await expectApiError(
      await patchConversation(
        bob.request(`/api/conversations/${id}`, "PATCH", { settings: { instructions: "hijack" } }),
        params({ id }),
      ),
      404,
      "not_found:conversation",
    );
    await expectApiError(
      await getOne(bob.request(`/api/conversations/${id}`, "GET"), params({ id })),
      404,
      "not_found:conversation",
    );
    const own = await getOne(alice.request(`/api/conversations/${id}`, "GET"), params({ id }));
    expect(((await own.json()) as { conversation: { settings: unknown } }).conversation.settings).toEqual({});
  });
});

describe("a new chat starts from a preset", () => {
  it("applies the chosen preset's model and settings; the request's model wins over the preset's", async () => {
    const preset = await newPreset(bob, { name: "Coder", model: "qwen3:8b", settings: { topP: 0.9, think: false } });
    const { conversation } = await newChat(bob, { presetId: preset.id });
    expect(conversation).toMatchObject({ model: "qwen3:8b", settings: { topP: 0.9, think: false } });
    const named = await newChat(bob, { presetId: preset.id, model: "gemma:2b" });
    expect(named.conversation).toMatchObject({ model: "gemma:2b", settings: { topP: 0.9, think: false } });
  });

  it("applies the personal default when no preset is chosen, and none when null is chosen", async () => {
    const preset = await newPreset(bob, {
      name: "Custom instructions",
      settings: { instructions: "I am a nurse; explain medical terms." },
      isDefault: true,
    });
    expect((await newChat(bob)).conversation).toMatchObject({
      model: null,
      settings: { instructions: "I am a nurse; explain medical terms." },
    });
    expect((await newChat(bob, { presetId: null })).conversation?.settings).toEqual({});
    // Alice's new chats are not touched by Bob's default.
    expect((await newChat(alice)).conversation?.settings).toEqual({});
    // The chat's settings are its own: changing the preset later leaves it as it was.
    const { conversation } = await newChat(bob);
    await patchPreset(bob.request(`/api/presets/${preset.id}`, "PATCH", { settings: {} }), params({ id: preset.id }));
    const id = conversation?.id ?? "";
    const detail = await getOne(bob.request(`/api/conversations/${id}`, "GET"), params({ id }));
    expect(((await detail.json()) as { conversation: { settings: unknown } }).conversation.settings).toEqual({
      instructions: "I am a nurse; explain medical terms.",
    });
  });
});
