import "server-only";
import { and, asc, eq, isNull } from "drizzle-orm";
import { AppError } from "@/lib/errors";
import type { Db } from "./client";
import { type OwnerId, ownedBy as ownedConversation } from "./conversations";
import { conversations, type Memory, memories, messages, runs } from "./schema";

/**
 * A user's memories (docs/architecture.md, "Projects and memory"): lasting facts and preferences,
 * each with the conversation, run and answer that proposed it. Another user's memory is "not found",
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
 * The owner's run, by its conversation: another user's run is "not found", exactly like a missing
 * one.
 */
export async function ownedRun(
  db: Db,
  { runId, ownerId }: { runId: string; ownerId: OwnerId },
): Promise<{ id: string; conversationId: string }> {
  const [run] = await db
    .select({ id: runs.id, conversationId: runs.conversationId })
    .from(runs)
    .innerJoin(conversations, eq(conversations.id, runs.conversationId))
    .where(and(eq(runs.id, runId), ownedConversation(ownerId)))
    .limit(1);
  if (!run) throw new AppError("not_found:run", `Run ${runId} not found.`);
  return run;
}

/**
 * Stores a memory the user wrote, or one from a run (`runId`: the run's `remember` saving it, or
 * the user saving its proposal, while the answer streams or after) or from a stored answer
 * (`messageId`). The run or the answer must be in one of the owner's conversations: else "not
 * found", like a missing one. A memory from a run keeps its conversation and names the run's answer
 * once that is stored (`nameRunAnswer`), whichever comes first.
 */
export async function createMemory(
  db: Db,
  { ownerId, text, messageId, runId }: { ownerId: OwnerId; text: string; messageId?: string; runId?: string },
): Promise<Memory> {
  let from = { conversationId: null as string | null, messageId: null as string | null, runId: null as string | null };
  if (messageId !== undefined) {
    const [message] = await db
      .select({ id: messages.id, conversationId: messages.conversationId, runId: messages.runId })
      .from(messages)
      .innerJoin(conversations, eq(conversations.id, messages.conversationId))
      .where(and(eq(messages.id, messageId), ownedConversation(ownerId)))
      .limit(1);
    if (!message) throw new AppError("not_found:message", `Message ${messageId} not found.`);
    from = { conversationId: message.conversationId, messageId: message.id, runId: message.runId };
  } else if (runId !== undefined) {
    const run = await ownedRun(db, { runId, ownerId });
    from = { conversationId: run.conversationId, messageId: null, runId: run.id };
  }
  const now = Date.now();
  const row: Memory = { id: crypto.randomUUID(), userId: ownerId, text, ...from, createdAt: now, updatedAt: now };
  await db.insert(memories).values(row);
  // The answer may have been stored meanwhile, its run's end naming the memories it found then.
  if (from.runId && !from.messageId) return { ...row, messageId: await nameRunAnswer(db, { runId: from.runId }) };
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

/**
 * Once a run's answer is stored (its end, or a memory saved from the run after it): the memories
 * from the run that name no answer yet name it. Returns the answer's id, or null while it is not
 * stored. Run after each of the two writes, so one of them always sees the other.
 */
export async function nameRunAnswer(db: Db, { runId }: { runId: string }): Promise<string | null> {
  const [answer] = await db
    .select({ id: messages.id })
    .from(messages)
    .where(and(eq(messages.runId, runId), eq(messages.role, "assistant")))
    .limit(1);
  if (!answer) return null;
  await db
    .update(memories)
    .set({ messageId: answer.id })
    .where(and(eq(memories.runId, runId), isNull(memories.messageId)));
  return answer.id;
}
