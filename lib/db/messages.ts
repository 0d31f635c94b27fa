import "server-only";
import { asc, eq } from "drizzle-orm";
import type { Db } from "./client";
import { isInterrupt, MessageTree } from "./message-tree";
import { insertionOrder } from "./portable-sql";
import { type Conversation, conversations, type Message, type MessageStatus, messages } from "./schema";

/**
 * A conversation's messages: storing one, listing them, and the tree of versions they form
 * (docs/architecture.md, "Persistence": versions). Which branch is shown is the conversation's
 * (lib/db/conversations.ts, `selectBranch`).
 */

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

/** The conversation's messages as a tree. */
export async function messageTree(db: Db, { conversationId }: { conversationId: string }): Promise<MessageTree> {
  return new MessageTree(await listMessages(db, { conversationId }));
}

/** The branch shown, first question first, with the interrupts each run took (lib/db/message-tree.ts). */
export async function activePath(db: Db, conversation: Pick<Conversation, "id" | "activeLeafId">): Promise<Message[]> {
  return (await messageTree(db, { conversationId: conversation.id })).path(conversation.activeLeafId);
}
