import "server-only";
import { and, desc, eq, inArray, isNull, lt, not, or, type SQL, sql } from "drizzle-orm";
import type { ChatSettings } from "@/lib/chat-settings";
import { AppError } from "@/lib/errors";
import { DEFAULT_TITLE } from "@/lib/text/conversation-title";
import type { Db } from "./client";
import { describeMatch, matchesQuery, type SearchMatch } from "./conversation-search";
import { messageTree } from "./messages";
import { lockedForUpdate } from "./portable-sql";
import { type Conversation, conversations, files, instances, messages, runs } from "./schema";

/**
 * Conversations: creating, finding, listing, changing and deleting an owner's ones, and which branch
 * each shows. Their messages are lib/db/messages.ts, a conversation's page lib/db/conversation-detail.ts.
 */

/**
 * Who a query acts for: a user's id, or null in single-user mode (conversations without an owner).
 * Every conversation query takes it, so one account never reaches another's data.
 */
export type OwnerId = string | null;

export const ownedBy = (ownerId: OwnerId) =>
  ownerId === null ? isNull(conversations.userId) : eq(conversations.userId, ownerId);

export async function createConversation(
  db: Db,
  {
    title,
    model,
    settings = {},
    disabledToolGroups = [],
    projectId = null,
    private: isPrivate = false,
    ownerId,
  }: {
    title?: string;
    model?: string | null;
    settings?: ChatSettings;
    disabledToolGroups?: string[];
    /** A project of the same owner (callers check it). */
    projectId?: string | null;
    /** Reads and writes no memory. */
    private?: boolean;
    ownerId: OwnerId;
  },
): Promise<Conversation> {
  const now = Date.now();
  const row: Conversation = {
    id: crypto.randomUUID(),
    userId: ownerId,
    title: title?.trim() || DEFAULT_TITLE,
    model: model ?? null,
    summary: null,
    summaryThrough: null,
    planFirst: false,
    disabledToolGroups,
    activeLeafId: null,
    settings,
    pinned: false,
    archived: false,
    projectId,
    private: isPrivate,
    createdAt: now,
    updatedAt: now,
  };
  await db.insert(conversations).values(row);
  return row;
}

/** One of the owner's conversations; anyone else's is "not found", exactly like a missing one. */
export async function getConversation(
  db: Db,
  { id, ownerId }: { id: string; ownerId: OwnerId },
): Promise<Conversation> {
  const [row] = await db
    .select()
    .from(conversations)
    .where(and(eq(conversations.id, id), ownedBy(ownerId)))
    .limit(1);
  if (!row) throw new AppError("not_found:conversation", `Conversation ${id} not found.`);
  return row;
}

/**
 * Inside a transaction storing a turn or deleting the conversation: the owner's conversation is still
 * there (else 404), locked until the transaction ends, so a deletion (of it or of its account) either
 * went first (404 for the turn, nothing stored) or waits for it and then sees its run.
 */
export async function holdConversation(tx: Db, { id, ownerId }: { id: string; ownerId: OwnerId }): Promise<void> {
  const [held] = await lockedForUpdate(
    tx
      .select({ id: conversations.id })
      .from(conversations)
      .where(and(eq(conversations.id, id), ownedBy(ownerId))),
  );
  if (!held) throw new AppError("not_found:conversation", `Conversation ${id} not found.`);
}

/** Where a page of the list ends: the order's keys of its last conversation. */
interface Cursor {
  pinned: boolean;
  updatedAt: number;
  id: string;
}

function encodeCursor(cursor: Cursor): string {
  return Buffer.from(JSON.stringify([cursor.pinned ? 1 : 0, cursor.updatedAt, cursor.id])).toString("base64url");
}

function decodeCursor(value: string): Cursor {
  try {
    const [pinned, updatedAt, id] = JSON.parse(Buffer.from(value, "base64url").toString("utf8")) as unknown[];
    if ((pinned === 0 || pinned === 1) && typeof updatedAt === "number" && typeof id === "string") {
      return { pinned: pinned === 1, updatedAt, id };
    }
  } catch {
    // fall through to the error below
  }
  throw new AppError("bad_request:cursor", "Invalid cursor.");
}

/** Conversations after the cursor in the list's order: pinned first, then latest activity, then id. */
function after(cursor: Cursor): SQL | undefined {
  const later = or(
    lt(conversations.updatedAt, cursor.updatedAt),
    and(eq(conversations.updatedAt, cursor.updatedAt), lt(conversations.id, cursor.id)),
  );
  return cursor.pinned
    ? or(eq(conversations.pinned, false), and(eq(conversations.pinned, true), later))
    : and(eq(conversations.pinned, false), later);
}

/** A conversation in the list; with a search, where the query matched. */
export type ConversationListItem = Conversation & { match?: SearchMatch };

/**
 * A conversation holding files but no message yet is a new chat still being written (files need a
 * conversation to belong to): it is listed once its first message is sent.
 */
export const hasMessages = sql`exists (select 1 from ${messages} where ${messages.conversationId} = ${conversations.id})`;
const hasFiles = sql`exists (select 1 from ${files} where ${files.conversationId} = ${conversations.id})`;
const started = or(hasMessages, not(hasFiles));

/**
 * Removes new chats left before their first message (a file attached, then the tab closed): no
 * message, and no file added since `before`. Returns how many went.
 */
export async function removeAbandonedConversations(db: Db, { before }: { before: number }): Promise<number> {
  const lastFile = sql`(select max(${files.createdAt}) from ${files} where ${files.conversationId} = ${conversations.id})`;
  const removed = await db
    .delete(conversations)
    .where(and(not(hasMessages), hasFiles, lt(lastFile, before)))
    .returning({ id: conversations.id });
  return removed.length;
}

/**
 * Pinned first, then newest activity first; `q` matches titles and message contents. Archived
 * conversations are listed (and searched) only with `archived`, and then only they are. With
 * `projectId`, only that project's (callers check the project is the owner's).
 */
export async function listConversations(
  db: Db,
  {
    q,
    cursor,
    limit = 30,
    archived = false,
    projectId,
    ownerId,
  }: { q?: string; cursor?: string; limit?: number; archived?: boolean; projectId?: string; ownerId: OwnerId },
): Promise<{ conversations: ConversationListItem[]; nextCursor: string | null }> {
  const query = q?.trim();
  const filters: (SQL | undefined)[] = [ownedBy(ownerId), eq(conversations.archived, archived), started];
  if (projectId !== undefined) filters.push(eq(conversations.projectId, projectId));
  if (query) filters.push(matchesQuery(db, query));
  if (cursor) filters.push(after(decodeCursor(cursor)));
  const rows = await db
    .select()
    .from(conversations)
    .where(and(...filters))
    .orderBy(desc(conversations.pinned), desc(conversations.updatedAt), desc(conversations.id))
    .limit(limit + 1);
  const page = rows.slice(0, limit);
  const last = page.at(-1);
  return {
    conversations: query
      ? await Promise.all(page.map(async (row) => ({ ...row, match: await describeMatch(db, row, query) })))
      : page,
    nextCursor: rows.length > limit && last ? encodeCursor(last) : null,
  };
}

export async function updateConversation(
  db: Db,
  {
    id,
    title,
    model,
    planFirst,
    settings,
    disabledToolGroups,
    pinned,
    archived,
    projectId,
    private: isPrivate,
    ownerId,
  }: {
    id: string;
    title?: string;
    model?: string | null;
    planFirst?: boolean;
    settings?: ChatSettings;
    disabledToolGroups?: string[];
    pinned?: boolean;
    archived?: boolean;
    /** Moves it into a project of the same owner (callers check it), or out of any with null. */
    projectId?: string | null;
    /** Private: reads and writes no memory from its next turn on. */
    private?: boolean;
    ownerId: OwnerId;
  },
): Promise<Conversation> {
  await getConversation(db, { id, ownerId });
  // Not `updatedAt`: the list is ordered by activity, and naming, pinning or archiving is not activity.
  const changes: Partial<Conversation> = {};
  if (title !== undefined) changes.title = title.trim() || DEFAULT_TITLE;
  if (model !== undefined) changes.model = model;
  if (planFirst !== undefined) changes.planFirst = planFirst;
  if (settings !== undefined) changes.settings = settings;
  if (disabledToolGroups !== undefined) changes.disabledToolGroups = disabledToolGroups;
  if (pinned !== undefined) changes.pinned = pinned;
  if (archived !== undefined) changes.archived = archived;
  if (projectId !== undefined) changes.projectId = projectId;
  if (isPrivate !== undefined) changes.private = isPrivate;
  await db.update(conversations).set(changes).where(eq(conversations.id, id));
  return getConversation(db, { id, ownerId });
}

/** The runs going in this process (`LiveRuns`), and the app instance it is (null: none, SQLite). */
export interface RunsHere {
  instanceId: string | null;
  get(runId: string): unknown;
}

/**
 * Deletes the conversation with everything in it; 409 while one of its runs goes on: here, or on
 * another registered app instance. A row left `running` that no process holds (its end not yet
 * stored) does not keep it. The row is locked first, so a start storing its run (whose rows
 * reference it) is waited for and then seen, and a later one waits for the delete and finds the
 * conversation gone.
 */
export async function deleteConversation(
  db: Db,
  { id, ownerId, runsHere }: { id: string; ownerId: OwnerId; runsHere: RunsHere },
): Promise<void> {
  await db.transaction(async (tx) => {
    await holdConversation(tx, { id, ownerId });
    if (await runGoingOn(tx, [id], runsHere)) {
      throw new AppError("conflict:run_active", "Stop the running answer before deleting this conversation.");
    }
    await tx.delete(conversations).where(eq(conversations.id, id));
  });
}

/**
 * Whether a run of these conversations goes on: here, or on another registered app instance. A row
 * left `running` that no process holds (its end not yet stored) does not count.
 */
export async function runGoingOn(db: Db, conversationIds: string[], runsHere: RunsHere): Promise<boolean> {
  if (conversationIds.length === 0) return false;
  const running = await db
    .select({ id: runs.id, instanceId: runs.instanceId })
    .from(runs)
    .where(and(inArray(runs.conversationId, conversationIds), eq(runs.status, "running")));
  for (const run of running) {
    if (runsHere.get(run.id) || (await heldElsewhere(db, run.instanceId, runsHere))) return true;
  }
  return false;
}

async function heldElsewhere(db: Db, instanceId: string | null, runsHere: RunsHere): Promise<boolean> {
  if (instanceId === null || instanceId === runsHere.instanceId) return false;
  const [registered] = await db.select({ id: instances.id }).from(instances).where(eq(instances.id, instanceId));
  return registered !== undefined;
}

/**
 * Shows the branch through one message of the conversation: that message, the messages before it,
 * and below it the newest version at each step. Switching versions selects the version; opening a
 * conversation at a message (a search hit on another branch) selects that message. 404 for a
 * message of another conversation.
 */
export async function selectBranch(
  db: Db,
  { id, ownerId, messageId }: { id: string; ownerId: OwnerId; messageId: string },
): Promise<void> {
  await getConversation(db, { id, ownerId });
  const tree = await messageTree(db, { conversationId: id });
  if (!tree.get(messageId))
    throw new AppError("not_found:message", `Message ${messageId} not found in this conversation.`);
  await setActiveLeaf(db, { id, messageId: tree.leafThrough(messageId) });
}

/** Makes `messageId` the end of the branch shown, exactly (callers check it belongs to the conversation). */
export async function setActiveLeaf(db: Db, { id, messageId }: { id: string; messageId: string }): Promise<void> {
  await db.update(conversations).set({ activeLeafId: messageId }).where(eq(conversations.id, id));
}

/** Keeps a compaction summary of the conversation's turns up to `throughMessageId`. */
export async function saveConversationSummary(
  db: Db,
  { id, summary, throughMessageId }: { id: string; summary: string; throughMessageId: string },
): Promise<void> {
  await db.update(conversations).set({ summary, summaryThrough: throughMessageId }).where(eq(conversations.id, id));
}
