import "server-only";
import { and, asc, desc, eq, inArray, isNull, lt, not, or, type SQL, sql } from "drizzle-orm";
import type { ChatSettings } from "@/lib/chat-settings";
import { AppError } from "@/lib/errors";
import type { Db } from "./client";
import { describeMatch, matchesQuery, type SearchMatch } from "./conversation-search";
import { isInterrupt, MessageTree } from "./message-tree";
import { insertionOrder, lockedForUpdate } from "./portable-sql";
import { listRuns, type RunSummary, sentRunEvent, summarizeRun } from "./runs";
import {
  type Conversation,
  conversations,
  files,
  instances,
  type Message,
  type MessageStatus,
  messages,
  runEvents,
  runs,
} from "./schema";

export const DEFAULT_TITLE = "New chat";
const TITLE_MAX = 80;

/** A title from the first message: one line, cut at a word boundary. */
export function titleFromMessage(text: string): string {
  const line = text.replace(/\s+/g, " ").trim();
  if (line.length <= TITLE_MAX) return line || DEFAULT_TITLE;
  const cut = line.slice(0, TITLE_MAX);
  const space = cut.lastIndexOf(" ");
  return `${(space > TITLE_MAX / 2 ? cut.slice(0, space) : cut).trimEnd()}…`;
}

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
    ownerId,
  }: {
    title?: string;
    model?: string | null;
    settings?: ChatSettings;
    disabledToolGroups?: string[];
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
 * conversations are listed (and searched) only with `archived`, and then only they are.
 */
export async function listConversations(
  db: Db,
  {
    q,
    cursor,
    limit = 30,
    archived = false,
    ownerId,
  }: { q?: string; cursor?: string; limit?: number; archived?: boolean; ownerId: OwnerId },
): Promise<{ conversations: ConversationListItem[]; nextCursor: string | null }> {
  const query = q?.trim();
  const filters: (SQL | undefined)[] = [ownedBy(ownerId), eq(conversations.archived, archived), started];
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
    const [running] = await tx
      .select({ id: runs.id, instanceId: runs.instanceId })
      .from(runs)
      .where(and(eq(runs.conversationId, id), eq(runs.status, "running")))
      .limit(1);
    if (running && (runsHere.get(running.id) || (await heldElsewhere(tx, running.instanceId, runsHere)))) {
      throw new AppError("conflict:run_active", "Stop the running answer before deleting this conversation.");
    }
    await tx.delete(conversations).where(eq(conversations.id, id));
  });
}

async function heldElsewhere(db: Db, instanceId: string | null, runsHere: RunsHere): Promise<boolean> {
  if (instanceId === null || instanceId === runsHere.instanceId) return false;
  const [registered] = await db.select({ id: instances.id }).from(instances).where(eq(instances.id, instanceId));
  return registered !== undefined;
}

/**
 * Stores a message under `parentId` (by default the end of the branch shown). A question or an
 * answer becomes the end of the branch shown; an interrupt does not.
 */
export async function insertMessage(
  db: Db,
  values: {
    /** Given when the message was announced before it is stored (an interrupt's id). */
    id?: string;
    conversationId: string;
    /** The message this one follows; undefined: the end of the branch shown. */
    parentId?: string | null;
    role: Message["role"];
    content: string;
    status?: MessageStatus;
    runId?: string | null;
    attachmentIds?: string[];
  },
): Promise<Message> {
  const row: Message = {
    id: values.id ?? crypto.randomUUID(),
    conversationId: values.conversationId,
    parentId: null,
    role: values.role,
    content: values.content,
    status: values.status ?? "complete",
    runId: values.runId ?? null,
    attachmentIds: values.attachmentIds?.length ? values.attachmentIds : null,
    createdAt: Date.now(),
  };
  await db.transaction(async (tx) => {
    row.parentId = values.parentId !== undefined ? values.parentId : await activeLeaf(tx, row.conversationId);
    await tx.insert(messages).values(row);
    await tx
      .update(conversations)
      .set(isInterrupt(row) ? { updatedAt: row.createdAt } : { updatedAt: row.createdAt, activeLeafId: row.id })
      .where(eq(conversations.id, row.conversationId));
  });
  return row;
}

/** The end of the conversation's branch shown, if any. */
export async function activeLeaf(db: Db, conversationId: string): Promise<string | null> {
  const [row] = await db
    .select({ leaf: conversations.activeLeafId })
    .from(conversations)
    .where(eq(conversations.id, conversationId))
    .limit(1);
  return row?.leaf ?? null;
}

export function listMessages(db: Db, { conversationId }: { conversationId: string }): Promise<Message[]> {
  return db
    .select()
    .from(messages)
    .where(eq(messages.conversationId, conversationId))
    .orderBy(asc(messages.createdAt), asc(insertionOrder(messages)));
}

export function listFileSummaries(db: Db, { conversationId }: { conversationId: string }) {
  return db
    .select({
      id: files.id,
      origin: files.origin,
      filename: files.filename,
      mime: files.mime,
      size: files.size,
      pageCount: files.pageCount,
      sourceUrl: files.sourceUrl,
      createdAt: files.createdAt,
    })
    .from(files)
    .where(eq(files.conversationId, conversationId))
    .orderBy(asc(files.createdAt));
}

/** The conversation's messages as a tree. */
export async function messageTree(db: Db, { conversationId }: { conversationId: string }): Promise<MessageTree> {
  return new MessageTree(await listMessages(db, { conversationId }));
}

/** The branch shown, first question first, with the interrupts each run took (lib/db/message-tree.ts). */
export async function activePath(db: Db, conversation: Pick<Conversation, "id" | "activeLeafId">): Promise<Message[]> {
  return (await messageTree(db, { conversationId: conversation.id })).path(conversation.activeLeafId);
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

/**
 * A message of a conversation's detail: an assistant message comes with the run that wrote it;
 * `versions` are the ids of its versions, oldest first, itself included.
 */
export type MessageWithRun = Message & { run: RunSummary | null; versions: string[] };

/** A conversation with the messages of the branch shown, its files, and each assistant message's run. */
export async function getConversationDetail(db: Db, { id, ownerId }: { id: string; ownerId: OwnerId }) {
  const conversation = await getConversation(db, { id, ownerId });
  const tree = await messageTree(db, { conversationId: id });
  const runRows = await listRuns(db, { conversationId: id });
  // Steps, compactions and errors, so a reload shows the same turn.
  const stepEvents = await db
    .select({ runId: runEvents.runId, type: runEvents.type, seq: runEvents.seq, data: runEvents.data })
    .from(runEvents)
    .innerJoin(runs, eq(runs.id, runEvents.runId))
    .where(
      and(eq(runs.conversationId, id), inArray(runEvents.type, ["step", "compact", "plan", "step_progress", "error"])),
    )
    .orderBy(asc(runEvents.runId), asc(runEvents.seq));
  const runsById = new Map(
    runRows.map((run) => [
      run.id,
      summarizeRun(run, stepEvents.filter((event) => event.runId === run.id).map(sentRunEvent)),
    ]),
  );
  return {
    conversation,
    messages: tree.path(conversation.activeLeafId).map(
      (message): MessageWithRun => ({
        ...message,
        run: message.role === "assistant" && message.runId ? (runsById.get(message.runId) ?? null) : null,
        versions: tree.versions(message),
      }),
    ),
    files: await listFileSummaries(db, { conversationId: id }),
    activeRunId: runRows.find((run) => run.status === "running")?.id ?? null,
  };
}

/** Keeps a compaction summary of the conversation's turns up to `throughMessageId`. */
export async function saveConversationSummary(
  db: Db,
  { id, summary, throughMessageId }: { id: string; summary: string; throughMessageId: string },
): Promise<void> {
  await db.update(conversations).set({ summary, summaryThrough: throughMessageId }).where(eq(conversations.id, id));
}
