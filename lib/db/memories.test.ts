import { describe, expect, it } from "vitest";
import { readMemoryPreferences, writeMemoryPreferences } from "@/lib/memory/preferences";
import { tempDbForEachTest } from "@/tests/support/temp-db";
import type { Db } from "./client";
import { createConversation } from "./conversations";
import {
  attachMemories,
  createMemory,
  deleteMemory,
  getMemory,
  listMemories,
  memoryPreferencesKey,
  updateMemory,
} from "./memories";
import { messages, users } from "./schema";
import { readSetting } from "./settings";
import { deleteUser } from "./users";

/** A user's memories (docs/architecture.md, "Projects and memory"), on SQLite and on PostgreSQL. */

let db: Db;
tempDbForEachTest((temp) => {
  db = temp.db;
});

async function addUser(id: string) {
  await db.insert(users).values({ id, username: id, passwordHash: "x", role: "user", createdAt: Date.now() });
}

async function addAnswer(conversationId: string): Promise<string> {
  const id = crypto.randomUUID();
  await db.insert(messages).values({ id, conversationId, role: "assistant", content: "ok", createdAt: Date.now() });
  return id;
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

    // The run saves before its answer is stored, then names it.
    const early = await createMemory(db, { ownerId: "alice", text: "c", conversationId: chat.id });
    const later = await addAnswer(chat.id);
    await attachMemories(db, { ids: [early.id], conversationId: chat.id, messageId: later });
    expect((await getMemory(db, { id: early.id, ownerId: "alice" })).messageId).toBe(later);
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
