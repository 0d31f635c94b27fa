import { describe, expect, it } from "vitest";
import { readMemoryPreferences, writeMemoryPreferences } from "@/lib/memory/preferences";
import { tempDbForEachTest } from "@/tests/support/temp-db";
import type { Db } from "./client";
import { createConversation } from "./conversations";
import {
  createMemory,
  deleteMemory,
  getMemory,
  listMemories,
  memoryPreferencesKey,
  nameRunAnswer,
  updateMemory,
} from "./memories";
import { dismissedProposals, dismissProposal } from "./memory-dismissals";
import { createRun } from "./runs";
import { memoryDismissals, messages, users } from "./schema";
import { readSetting } from "./settings";
import { deleteUser, insertUser } from "./users";

/** A user's memories (docs/architecture.md, "Projects and memory"), on SQLite and on PostgreSQL. */

let db: Db;
tempDbForEachTest((temp) => {
  db = temp.db;
});

async function addUser(id: string) {
  await db.insert(users).values({ id, username: id, passwordHash: "x", role: "user", createdAt: Date.now() });
}

async function addAnswer(conversationId: string, runId: string | null = null): Promise<string> {
  const id = crypto.randomUUID();
  await db
    .insert(messages)
    .values({ id, conversationId, role: "assistant", content: "ok", runId, createdAt: Date.now() });
  return id;
}

async function addRun(ownerId: string | null) {
  const chat = await createConversation(db, { ownerId });
  return createRun(db, { conversationId: chat.id, mode: "native", model: "m" });
}

describe("memories", () => {
  it("lists, changes and deletes the owner's memories only: another user's is not found", async () => {
    await addUser("alice");
    await addUser("bob");
    const mine = await createMemory(db, { ownerId: "alice", text: "I work in metric units." });
    await createMemory(db, { ownerId: "bob", text: "Bob's secret." });
    expect((await listMemories(db, { ownerId: "alice" })).map((m) => m.text)).toEqual(["I work in metric units."]);
    expect(await listMemories(db, { ownerId: null })).toEqual([]);

    await expect(getMemory(db, { id: mine.id, ownerId: "bob" })).rejects.toMatchObject({ code: "not_found:memory" });
    await expect(updateMemory(db, { id: mine.id, ownerId: "bob", text: "x" })).rejects.toMatchObject({
      code: "not_found:memory",
    });
    await expect(deleteMemory(db, { id: mine.id, ownerId: "bob" })).rejects.toMatchObject({ code: "not_found:memory" });
    expect((await getMemory(db, { id: mine.id, ownerId: "alice" })).text).toBe("I work in metric units.");

    const changed = await updateMemory(db, { id: mine.id, ownerId: "alice", text: "I use SI units." });
    expect(changed.text).toBe("I use SI units.");
    await deleteMemory(db, { id: mine.id, ownerId: "alice" });
    expect(await listMemories(db, { ownerId: "alice" })).toEqual([]);
  });

  it("keeps the answer a memory was saved from, and refuses another user's answer as not found", async () => {
    await addUser("alice");
    await addUser("bob");
    const chat = await createConversation(db, { ownerId: "alice" });
    const answer = await addAnswer(chat.id);
    const named = await createMemory(db, { ownerId: "alice", text: "a", messageId: answer });
    expect(named).toMatchObject({ conversationId: chat.id, messageId: answer });
    await expect(createMemory(db, { ownerId: "bob", text: "b", messageId: answer })).rejects.toMatchObject({
      code: "not_found:message",
    });
    expect(await listMemories(db, { ownerId: "bob" })).toEqual([]);
  });

  it("a memory from a run names the run's answer once stored, whether saved before the answer is stored or after", async () => {
    await addUser("alice");
    const run = await addRun("alice");
    // Saved while the answer streams: the run and its conversation, no answer yet.
    const early = await createMemory(db, { ownerId: "alice", text: "early", runId: run.id });
    expect(early).toMatchObject({ runId: run.id, conversationId: run.conversationId, messageId: null });
    expect(await nameRunAnswer(db, { runId: run.id })).toBeNull();
    const answer = await addAnswer(run.conversationId, run.id);
    // The run's end names it.
    expect(await nameRunAnswer(db, { runId: run.id })).toBe(answer);
    expect((await getMemory(db, { id: early.id, ownerId: "alice" })).messageId).toBe(answer);
    // Saved after the answer is stored (the run's end has named what it found): named at once.
    const late = await createMemory(db, { ownerId: "alice", text: "late", runId: run.id });
    expect(late.messageId).toBe(answer);
    expect((await getMemory(db, { id: late.id, ownerId: "alice" })).messageId).toBe(answer);
    // Saved from the stored answer: it keeps the answer's run too.
    const fromAnswer = await createMemory(db, { ownerId: "alice", text: "from the answer", messageId: answer });
    expect(fromAnswer).toMatchObject({ runId: run.id, messageId: answer, conversationId: run.conversationId });
  });

  it("refuses a memory from another user's run as that run not found, and stores nothing", async () => {
    await addUser("alice");
    await addUser("bob");
    const run = await addRun("alice");
    await expect(createMemory(db, { ownerId: "bob", text: "b", runId: run.id })).rejects.toMatchObject({
      code: "not_found:run",
    });
    await expect(createMemory(db, { ownerId: null, text: "b", runId: run.id })).rejects.toMatchObject({
      code: "not_found:run",
    });
    expect(await listMemories(db, { ownerId: "bob" })).toEqual([]);
    expect(await listMemories(db, { ownerId: null })).toEqual([]);
  });

  it("keeps each user's memory switches apart, memory on and saving without asking by default", async () => {
    expect(await readMemoryPreferences(db, { ownerId: "alice" })).toEqual({ enabled: true, askBeforeSaving: false });
    await writeMemoryPreferences(db, { ownerId: "alice", changes: { enabled: false } });
    await writeMemoryPreferences(db, { ownerId: null, changes: { askBeforeSaving: true } });
    expect(await readMemoryPreferences(db, { ownerId: "alice" })).toEqual({ enabled: false, askBeforeSaving: false });
    expect(await readMemoryPreferences(db, { ownerId: "bob" })).toEqual({ enabled: true, askBeforeSaving: false });
    expect(await readMemoryPreferences(db, { ownerId: null })).toEqual({ enabled: true, askBeforeSaving: true });
  });

  it("a user's memory switches go with the account: deleting the user removes their settings row, another user's stay", async () => {
    await addUser("alice");
    await addUser("bob");
    await writeMemoryPreferences(db, { ownerId: "alice", changes: { enabled: false, askBeforeSaving: true } });
    await writeMemoryPreferences(db, { ownerId: "bob", changes: { askBeforeSaving: true } });
    await createMemory(db, { ownerId: "alice", text: "I work in metric units." });

    await deleteUser(db, "alice");
    expect(await readSetting(db, memoryPreferencesKey("alice"))).toBeUndefined();
    expect(await listMemories(db, { ownerId: "alice" })).toEqual([]);
    // A new account under the same id starts from the defaults, not from the removed one's switches.
    await addUser("alice");
    expect(await readMemoryPreferences(db, { ownerId: "alice" })).toEqual({ enabled: true, askBeforeSaving: false });
    expect(await readMemoryPreferences(db, { ownerId: "bob" })).toEqual({ enabled: true, askBeforeSaving: true });
  });
});

describe("dismissed proposals", () => {
  it("keeps a dismissed proposal by its run and text, once, for its owner only", async () => {
    await addUser("alice");
    await addUser("bob");
    const run = await addRun("alice");
    await dismissProposal(db, { ownerId: "alice", runId: run.id, text: "I like tea." });
    await dismissProposal(db, { ownerId: "alice", runId: run.id, text: "I like tea." });
    expect(await dismissedProposals(db, { ownerId: "alice", runId: run.id })).toEqual(["I like tea."]);
    expect(await db.select().from(memoryDismissals)).toHaveLength(1);
    // Another user can neither read nor dismiss on alice's run: it is not found to them.
    await expect(dismissedProposals(db, { ownerId: "bob", runId: run.id })).rejects.toMatchObject({
      code: "not_found:run",
    });
    await expect(dismissProposal(db, { ownerId: "bob", runId: run.id, text: "x" })).rejects.toMatchObject({
      code: "not_found:run",
    });
    expect(await db.select().from(memoryDismissals)).toHaveLength(1);
  });

  it("go with the account, and the first account takes over single-user mode's", async () => {
    await addUser("alice");
    await dismissProposal(db, { ownerId: "alice", runId: (await addRun("alice")).id, text: "a" });
    const local = await addRun(null);
    await dismissProposal(db, { ownerId: null, runId: local.id, text: "local" });
    await deleteUser(db, "alice");
    expect((await db.select().from(memoryDismissals)).map((row) => row.text)).toEqual(["local"]);

    await insertUser(
      db,
      {
        id: "carol",
        username: "carol",
        passwordHash: "x",
        role: "admin",
        disabled: false,
        createdAt: 1,
        removingAt: null,
      },
      { claimOwnerless: true },
    );
    expect(await dismissedProposals(db, { ownerId: "carol", runId: local.id })).toEqual(["local"]);
  });
});
