import { afterEach, describe, expect, it } from "vitest";
import { DELETE as removeUser } from "@/app/api/admin/users/[userId]/route";
import { POST as addUser } from "@/app/api/admin/users/route";
import { POST as chat } from "@/app/api/chat/route";
import { PATCH as patchConversation } from "@/app/api/conversations/[id]/route";
import { DELETE as deleteMemory, PATCH as patchMemory } from "@/app/api/memories/[id]/route";
import { GET as exportMemories } from "@/app/api/memories/export/route";
import { POST as createMemory, GET as listMemories } from "@/app/api/memories/route";
import { PATCH as patchMemorySettings, GET as readMemorySettings } from "@/app/api/memories/settings/route";
import { getDb } from "@/lib/db/client";
import { memoryPreferencesKey } from "@/lib/db/memories";
import { readSetting } from "@/lib/db/settings";
import { resetConfigForTests } from "@/lib/env-config";
import type { RecordedRequest } from "@/tests/fake-ollama/server";
import { setupFakeOllama } from "@/tests/fake-ollama/test-helpers";
import { PASSWORD, setupAccounts, signIn, type TestClient } from "@/tests/support/accounts";
import { expectApiError, type ParsedEvent, params, readEvents, setupAppEnv, waitIdle } from "@/tests/support/app-env";
import { newChat } from "@/tests/support/owned";

/**
 * The user's memory (docs/architecture.md, "Projects and memory"): the remember tool, the owner's
 * switches, private chats, the memories in every turn's system prompt within MEMORY_MAX_CHARS, and
 * memories that are their owner's only (adversarial: another account reads, changes, deletes and
 * is given none of them).
 */

const fake = setupFakeOllama();
setupAppEnv(fake);

const { admin: alice, user: bob } = setupAccounts({ admin: "alice", user: "bob" });

interface Memory {
  id: string;
  text: string;
  conversationId: string | null;
  messageId: string | null;
}

afterEach(async () => {
  for (const who of [alice, bob]) {
    for (const memory of await memoriesOf(who)) await removeMemory(who, memory.id);
    await setMemorySettings(who, { enabled: true, askBeforeSaving: false });
  }
  delete process.env.MEMORY_MAX_CHARS;
  resetConfigForTests();
});

async function memoriesOf(who: TestClient): Promise<Memory[]> {
  const response = await listMemories(who.request("/api/memories", "GET"));
  expect(response.status).toBe(200);
  return ((await response.json()) as { memories: Memory[] }).memories;
}

async function addMemory(who: TestClient, body: Record<string, unknown>): Promise<Memory> {
  const response = await createMemory(who.request("/api/memories", "POST", body));
  expect(response.status).toBe(201);
  return ((await response.json()) as { memory: Memory }).memory;
}

const removeMemory = (who: TestClient, id: string) =>
  deleteMemory(who.request(`/api/memories/${id}`, "DELETE"), params({ id }));

const changeMemory = (who: TestClient, id: string, text: string) =>
  patchMemory(who.request(`/api/memories/${id}`, "PATCH", { text }), params({ id }));

async function setMemorySettings(who: TestClient, body: Record<string, unknown>) {
  const response = await patchMemorySettings(who.request("/api/memories/settings", "PATCH", body));
  expect(response.status).toBe(200);
}

async function runTurn(who: TestClient, conversationId: string, message: string): Promise<ParsedEvent[]> {
  const response = await chat(who.request("/api/chat", "POST", { conversationId, message }));
  expect(response.status).toBe(200);
  const events = await readEvents(response);
  await waitIdle(fake(), conversationId);
  return events;
}

const systemOf = (request: RecordedRequest | undefined) =>
  ((request?.body.messages ?? []) as { role: string; content: string }[]).find((m) => m.role === "system")?.content ??
  "";
const toolsOf = (request: RecordedRequest | undefined) =>
  ((request?.body.tools ?? []) as { function: { name: string } }[]).map((tool) => tool.function.name);
const stepsOf = (events: ParsedEvent[], type: string) =>
  events.filter((e) => e.event === "step" && e.data.type === type).map((e) => e.data);
const memoryNotices = (events: ParsedEvent[]) =>
  stepsOf(events, "notice").filter((step) => (step.about as { code?: string } | undefined)?.code === "memories");

/** The model calls remember, then answers from the trace. */
function scriptRemember(text: string) {
  fake().reset();
  fake().script(
    { when: { hasTools: true }, toolCalls: [{ name: "remember", arguments: { text }, id: "r1" }] },
    { when: { hasTools: true }, content: "Noted." },
    { when: { hasTools: false, stream: true }, chunks: ["Noted, ", "I will remember."] },
  );
}

function scriptAnswer() {
  fake().reset();
  fake().script(
    { when: { hasTools: true }, content: "Fine." },
    { when: { hasTools: false, stream: true }, chunks: ["Fine."] },
  );
}

describe("the memories API", () => {
  it("lists, adds, edits, deletes and exports the viewer's own memories", async () => {
    const added = await addMemory(alice, { text: "  I work in   metric units. " });
    expect(added.text).toBe("I work in metric units.");
    expect((await memoriesOf(alice)).map((m) => m.text)).toEqual(["I work in metric units."]);
    const changed = await changeMemory(alice, added.id, "I work in SI units.");
    expect(((await changed.json()) as { memory: Memory }).memory.text).toBe("I work in SI units.");
    const exported = await exportMemories(alice.request("/api/memories/export", "GET"));
    expect(exported.headers.get("content-disposition")).toContain("memories.json");
    const document = (await exported.json()) as { format: string; memories: Memory[] };
    expect(document.format).toBe("ollama-web.memories");
    expect(document.memories.map((m) => m.text)).toEqual(["I work in SI units."]);
    expect((await removeMemory(alice, added.id)).status).toBe(204);
    expect(await memoriesOf(alice)).toEqual([]);
    await expectApiError(
      await createMemory(alice.request("/api/memories", "POST", { text: "  " })),
      400,
      "bad_request:validation",
    );
  });

  it("another user's memory is not found: bob cannot list, read in an export, change or delete alice's", async () => {
    const secret = await addMemory(alice, { text: "Alice's team uses PostgreSQL 16." });
    expect(await memoriesOf(bob)).toEqual([]);
    const exported = (await (await exportMemories(bob.request("/api/memories/export", "GET"))).json()) as {
      memories: Memory[];
    };
    expect(exported.memories).toEqual([]);
    await expectApiError(await changeMemory(bob, secret.id, "hijacked"), 404, "not_found:memory");
    await expectApiError(await removeMemory(bob, secret.id), 404, "not_found:memory");
    expect((await memoriesOf(alice)).map((m) => m.text)).toEqual(["Alice's team uses PostgreSQL 16."]);
  });

  it("a memory saved from another user's answer is refused as that message not found", async () => {
    const id = await newChat(alice);
    scriptAnswer();
    const events = await runTurn(alice, id, "Hello");
    const done = events.find((e) => e.event === "done")?.data as { messageId: string };
    await expectApiError(
      await createMemory(bob.request("/api/memories", "POST", { text: "x", messageId: done.messageId })),
      404,
      "not_found:message",
    );
    expect(await memoriesOf(bob)).toEqual([]);
  });

  it("keeps each user's memory switches: reading and changing them", async () => {
    await setMemorySettings(alice, { askBeforeSaving: true });
    const read = async (who: TestClient) =>
      ((await (await readMemorySettings(who.request("/api/memories/settings", "GET"))).json()) as { settings: unknown })
        .settings;
    expect(await read(alice)).toEqual({ enabled: true, askBeforeSaving: true });
    expect(await read(bob)).toEqual({ enabled: true, askBeforeSaving: false });
  });
});

describe("removing an account", () => {
  it("a user's memory switches go with the account: removed by an admin, their settings row is gone, another's stays", async () => {
    const made = await addUser(alice.request("/api/admin/users", "POST", { username: "carol", password: PASSWORD }));
    expect(made.status).toBe(201);
    const { user: carolUser } = (await made.json()) as { user: { id: string } };
    const carol = await signIn("carol");
    await setMemorySettings(carol, { enabled: false, askBeforeSaving: true });
    await setMemorySettings(bob, { askBeforeSaving: true });
    const db = await getDb();
    expect(await readSetting(db, memoryPreferencesKey(carolUser.id))).toEqual({
      enabled: false,
      askBeforeSaving: true,
    });

    const removed = await removeUser(alice.request("", "DELETE"), params({ userId: carolUser.id }));
    expect(removed.status).toBe(204);
    expect(await readSetting(db, memoryPreferencesKey(carolUser.id))).toBeUndefined();
    const bobs = await readMemorySettings(bob.request("/api/memories/settings", "GET"));
    expect(((await bobs.json()) as { settings: unknown }).settings).toEqual({ enabled: true, askBeforeSaving: true });
  });
});

describe("the remember tool", () => {
  it("saves a memory at once with its conversation and answer, shows it in the tool_result step, and Undo deletes it", async () => {
    const id = await newChat(alice);
    scriptRemember("I work in metric units.");
    const events = await runTurn(alice, id, "Please remember: I work in metric units.");
    expect(toolsOf(fake().chatRequests()[0])).toContain("remember");
    const [result] = stepsOf(events, "tool_result");
    const note = result?.memory as { status: string; id: string; text: string };
    expect(note).toMatchObject({ status: "saved", text: "I work in metric units." });
    const done = events.find((e) => e.event === "done")?.data as { messageId: string };
    await expect.poll(async () => (await memoriesOf(alice))[0]?.messageId).toBe(done.messageId);
    const [saved] = await memoriesOf(alice);
    expect(saved).toMatchObject({ id: note.id, conversationId: id, text: "I work in metric units." });
    expect((await removeMemory(alice, note.id)).status).toBe(204);
    expect(await memoriesOf(alice)).toEqual([]);
  });

  it("ask before saving: remember only proposes, nothing is stored until the user saves it", async () => {
    await setMemorySettings(alice, { askBeforeSaving: true });
    const id = await newChat(alice);
    scriptRemember("My team uses PostgreSQL 16.");
    const events = await runTurn(alice, id, "My team uses PostgreSQL 16.");
    const [result] = stepsOf(events, "tool_result");
    expect(result?.memory).toEqual({ status: "proposed", text: "My team uses PostgreSQL 16." });
    expect(await memoriesOf(alice)).toEqual([]);
    const done = events.find((e) => e.event === "done")?.data as { messageId: string };
    const saved = await addMemory(alice, {
      text: "My team uses PostgreSQL 16.",
      messageId: done.messageId,
    });
    expect(saved).toMatchObject({ conversationId: id, messageId: done.messageId });
  });

  it("memory off: no remember tool is offered and no memory reaches the prompt", async () => {
    await addMemory(alice, { text: "I work in metric units." });
    await setMemorySettings(alice, { enabled: false });
    const id = await newChat(alice);
    scriptAnswer();
    const events = await runTurn(alice, id, "How far is Osaka from Tokyo?");
    const request = fake().chatRequests()[0];
    expect(toolsOf(request)).not.toContain("remember");
    expect(systemOf(request)).not.toContain("metric units");
    expect(memoryNotices(events)).toEqual([]);
  });
});

describe("private chats", () => {
  it("a private chat (made private by PATCH) reads and writes no memory", async () => {
    await addMemory(alice, { text: "I work in metric units." });
    const id = await newChat(alice);
    const patched = await patchConversation(
      alice.request(`/api/conversations/${id}`, "PATCH", { private: true }),
      params({ id }),
    );
    expect(((await patched.json()) as { conversation: { private: boolean } }).conversation.private).toBe(true);
    scriptAnswer();
    await runTurn(alice, id, "How far is it in metric units?");
    const request = fake().chatRequests()[0];
    expect(toolsOf(request)).not.toContain("remember");
    expect(systemOf(request)).not.toContain("I work in metric units.");
  });

  it("a chat created private offers no remember tool and carries no memories", async () => {
    await addMemory(alice, { text: "I work in metric units." });
    const id = await newChat(alice, { private: true });
    scriptAnswer();
    await runTurn(alice, id, "How far is it in metric units?");
    const request = fake().chatRequests()[0];
    expect(toolsOf(request)).not.toContain("remember");
    expect(systemOf(request)).not.toContain("I work in metric units.");
  });
});

describe("memories in every turn's system prompt", () => {
  it("gives the model every memory while they fit, and the trail says how many of how many", async () => {
    await addMemory(alice, { text: "I work in metric units." });
    await addMemory(alice, { text: "My team uses PostgreSQL 16." });
    const id = await newChat(alice);
    scriptRemember("I like tea.");
    const events = await runTurn(alice, id, "How far is it?");
    const requests = fake().chatRequests();
    // The loop and the synthesis both carry them.
    expect(requests.length).toBeGreaterThanOrEqual(2);
    for (const request of requests.filter((r) => systemOf(r) !== "" && !String(systemOf(r)).includes("title"))) {
      expect(systemOf(request)).toContain("I work in metric units.");
      expect(systemOf(request)).toContain("My team uses PostgreSQL 16.");
    }
    expect(memoryNotices(events).map((n) => n.about)).toEqual([{ code: "memories", included: 2, total: 2 }]);
  });

  it("over MEMORY_MAX_CHARS, carries the most relevant to the question first and says how many were left out", async () => {
    process.env.MEMORY_MAX_CHARS = "60";
    resetConfigForTests();
    await addMemory(alice, { text: "I have a cat named Miso and two goldfish." });
    await addMemory(alice, { text: "My team uses PostgreSQL 16 in production." });
    await addMemory(alice, { text: "I prefer answers in British English spelling." });
    const id = await newChat(alice);
    scriptAnswer();
    const events = await runTurn(alice, id, "Which PostgreSQL settings suit production?");
    const system = systemOf(fake().chatRequests()[0]);
    expect(system).toContain("My team uses PostgreSQL 16 in production.");
    expect(system).not.toContain("cat named Miso");
    expect(memoryNotices(events).map((n) => n.about)).toEqual([{ code: "memories", included: 1, total: 3 }]);
  });

  it("user B's turn never carries user A's memories", async () => {
    await addMemory(alice, { text: "Alice's secret project is called Bluebird." });
    const id = await newChat(bob);
    scriptAnswer();
    const events = await runTurn(bob, id, "What is my secret project called? Bluebird?");
    for (const request of fake().chatRequests()) {
      expect(JSON.stringify(request.body)).not.toContain("Alice's secret project");
    }
    expect(memoryNotices(events)).toEqual([]);
  });
});
