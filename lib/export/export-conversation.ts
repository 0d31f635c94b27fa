import "server-only";
import { and, asc, desc, eq, inArray } from "drizzle-orm";
import type { Db } from "@/lib/db/client";
import { insertionOrder } from "@/lib/db/portable-sql";
import { getConversation, hasMessages, listMessages, type OwnerId, ownedBy } from "@/lib/db/queries";
import { listRuns } from "@/lib/db/runs";
import { conversations, files, interrupts, runEvents } from "@/lib/db/schema";
import {
  type ConversationExport,
  conversationColumns,
  EXPORT_FORMAT,
  EXPORT_VERSION,
  exportedColumns,
  fileColumns,
  interruptColumns,
  messageColumns,
  runColumns,
  runEventColumns,
} from "./format";

/** One of the owner's conversations as the version-1 document (lib/export/format.ts); another user's is a 404. */
export async function exportConversation(
  db: Db,
  { id, ownerId, withFiles }: { id: string; ownerId: OwnerId; withFiles: boolean },
): Promise<ConversationExport> {
  const conversation = await getConversation(db, { id, ownerId });
  const runRows = await listRuns(db, { conversationId: id });
  const runIds = runRows.map((run) => run.id);
  const events = runIds.length
    ? await db.select().from(runEvents).where(inArray(runEvents.runId, runIds)).orderBy(asc(runEvents.seq))
    : [];
  // A follow-up held for a run still starting (no row yet) has no run to go with.
  const heldInterrupts = runIds.length
    ? await db
        .select()
        .from(interrupts)
        .where(and(eq(interrupts.conversationId, id), inArray(interrupts.runId, runIds)))
        .orderBy(asc(interrupts.createdAt), asc(insertionOrder(interrupts)))
    : [];
  const fileRows = await db
    .select()
    .from(files)
    .where(eq(files.conversationId, id))
    .orderBy(asc(files.createdAt), asc(insertionOrder(files)));
  const messageRows = await listMessages(db, { conversationId: id });
  const document = {
    format: EXPORT_FORMAT,
    version: EXPORT_VERSION,
    exportedAt: Date.now(),
    conversation: exportedColumns(conversation, conversationColumns),
    messages: messageRows.map((message) => exportedColumns(message, messageColumns)),
    runs: runRows.map((run) => ({
      ...exportedColumns(run, runColumns),
      events: events.filter((event) => event.runId === run.id).map((event) => exportedColumns(event, runEventColumns)),
    })),
    interrupts: heldInterrupts.map((interrupt) => exportedColumns(interrupt, interruptColumns)),
    files: fileRows.map((file) => ({
      ...exportedColumns(file, fileColumns),
      ...(withFiles ? { bytes: file.bytes.toString("base64") } : {}),
    })),
  };
  // The rules above pick exactly the columns the format declares (tested in format.test.ts).
  return document as ConversationExport;
}

/** The ids of the owner's conversations with at least one message (those the sidebar lists), newest activity first. */
export async function exportableConversationIds(db: Db, { ownerId }: { ownerId: OwnerId }): Promise<string[]> {
  const rows = await db
    .select({ id: conversations.id })
    .from(conversations)
    .where(and(ownedBy(ownerId), hasMessages))
    .orderBy(desc(conversations.updatedAt), desc(conversations.id));
  return rows.map((row) => row.id);
}
