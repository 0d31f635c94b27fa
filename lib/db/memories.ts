import "server-only";
import { and, asc, eq, inArray, isNull } from "drizzle-orm";
import { AppError } from "@/lib/errors";
import type { Db } from "./client";
import { type OwnerId, ownedBy as ownedConversation } from "./conversations";
import { conversations, type Memory, memories, messages } from "./schema";

/**
 * A user's memories (docs/architecture.md, "Projects and memory"): lasting facts and preferences,
 * each with the conversation and answer that proposed it. Another user's memory is "not found",
 * exactly like a missing one; nothing here reads across owners.
 */

/** A memory as the API returns it: its owner is the viewer. */
export type PublicMemory = Omit<Memory, "userId">;

export const publicMemory = ({ userId: _owner, ...memory }: Memory): PublicMemory => memory;

/**
 * Where an owner's memory switches are kept in the settings table (lib/memory/preferences.ts reads
 * and writes them): one row per owner, removed with the account (`deleteUser`). The single local
 * user (no accounts) has one key too.
 */
export const memoryPreferencesKey = (ownerId: OwnerId) => `memory:${ownerId ?? "local"}`;

const ownedBy = (ownerId: OwnerId) => (ownerId === null ? isNull(memories.userId) : eq(memories.userId, ownerId));

/** The owner's memories, oldest first. */
export function listMemories(db: Db, { ownerId }: { ownerId: OwnerId }): Promise<Memory[]> {
  return db.select().from(memories).where(ownedBy(ownerId)).orderBy(asc(memories.createdAt), asc(memories.id));
}

export async function getMemory(db: Db, { id, ownerId }: { id: string; ownerId: OwnerId }): Promise<Memory> {
  const [row] = await db
    .select()
    .from(memories)
    .where(and(eq(memories.id, id), ownedBy(ownerId)))
    .limit(1);
  if (!row) throw new AppError("not_found:memory", `Memory ${id} not found.`);
  return row;
}

/**
 * Stores a memory: from a run, with its conversation (the caller's run, so the owner's; the answer
 * is named once stored, `attachMemories`), or saved by the user from an answer (`messageId`, which
 * must be a message of one of the owner's conversations: else "not found", like a missing one).
 */
export async function createMemory(
  db: Db,
  {
    ownerId,
    text,
    conversationId = null,
    messageId,
  }: { ownerId: OwnerId; text: string; conversationId?: string | null; messageId?: string },
): Promise<Memory> {
  let from = { conversationId, messageId: null as string | null };
  if (messageId !== undefined) {
    const [message] = await db
      .select({ id: messages.id, conversationId: messages.conversationId })
      .from(messages)
      .innerJoin(conversations, eq(conversations.id, messages.conversationId))
      .where(and(eq(messages.id, messageId), ownedConversation(ownerId)))
      .limit(1);
    if (!message) throw new AppError("not_found:message", `Message ${messageId} not found.`);
    from = { conversationId: message.conversationId, messageId: message.id };
  }
  const now = Date.now();
  const row: Memory = { id: crypto.randomUUID(), userId: ownerId, text, ...from, createdAt: now, updatedAt: now };
  await db.insert(memories).values(row);
  return row;
}

export async function updateMemory(
  db: Db,
  { id, ownerId, text }: { id: string; ownerId: OwnerId; text: string },
): Promise<Memory> {
  await getMemory(db, { id, ownerId });
  await db
    .update(memories)
    .set({ text, updatedAt: Date.now() })
    .where(and(eq(memories.id, id), ownedBy(ownerId)));
  return getMemory(db, { id, ownerId });
}

export async function deleteMemory(db: Db, { id, ownerId }: { id: string; ownerId: OwnerId }): Promise<void> {
  const deleted = await db
    .delete(memories)
    .where(and(eq(memories.id, id), ownedBy(ownerId)))
    .returning({ id: memories.id });
  if (deleted.length === 0) throw new AppError("not_found:memory", `Memory ${id} not found.`);
}

/** Once a run's answer is stored: the memories the run saved name it. */
export async function attachMemories(
  db: Db,
  { ids, conversationId, messageId }: { ids: string[]; conversationId: string; messageId: string },
): Promise<void> {
  if (ids.length === 0) return;
  await db
    .update(memories)
    .set({ messageId })
    .where(and(inArray(memories.id, ids), eq(memories.conversationId, conversationId)));
}
