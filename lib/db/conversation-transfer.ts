import "server-only";
import { and, asc, desc, eq, getTableColumns, inArray } from "drizzle-orm";
import { AppError } from "@/lib/errors";
import { citationReportsOf } from "./citation-reports";
import type { Db } from "./client";
import { getConversation, hasMessages, type OwnerId, ownedBy } from "./conversations";
import { listMessages } from "./messages";
import { insertionOrder } from "./portable-sql";
import { listRunSources } from "./run-sources";
import { getRun, listRuns } from "./runs";
import {
  citationReports,
  conversations,
  files,
  interrupts,
  messages,
  runEvents,
  runSourceParts,
  runSources,
  runs,
} from "./schema";

/**
 * A conversation's rows as a whole, for export and import (the document's format and checks are
 * lib/export): read for one of the owner's conversations, written for an imported one.
 */

/**
 * One of the owner's conversations with everything in it but its files' bytes — its runs' stored
 * sources and parts and its answers' citation reports included; another user's is a 404.
 */
export async function readConversationRows(db: Db, { id, ownerId }: { id: string; ownerId: OwnerId }) {
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
  const { bytes: _content, ...fileInfo } = getTableColumns(files);
  const fileRows = await db
    .select(fileInfo)
    .from(files)
    .where(eq(files.conversationId, id))
    .orderBy(asc(files.createdAt), asc(insertionOrder(files)));
  const messageRows = await listMessages(db, { conversationId: id });
  const ofConversation = (table: typeof runSources | typeof runSourceParts) =>
    and(eq(runs.id, table.runId), eq(runs.conversationId, id));
  const sources = await db
    .select(getTableColumns(runSources))
    .from(runSources)
    .innerJoin(runs, ofConversation(runSources))
    .orderBy(asc(runSources.runId), asc(runSources.n));
  const sourceParts = await db
    .select(getTableColumns(runSourceParts))
    .from(runSourceParts)
    .innerJoin(runs, ofConversation(runSourceParts))
    .orderBy(asc(runSourceParts.runId), asc(runSourceParts.n), asc(runSourceParts.seq));
  const reports = await db
    .select(getTableColumns(citationReports))
    .from(citationReports)
    .innerJoin(messages, and(eq(messages.id, citationReports.messageId), eq(messages.conversationId, id)))
    .orderBy(asc(citationReports.messageId));
  return {
    conversation,
    runs: runRows,
    events,
    interrupts: heldInterrupts,
    files: fileRows,
    messages: messageRows,
    sources,
    sourceParts,
    citationReports: reports,
  };
}

/**
 * One answer of one of the owner's conversations, for its export as a document: the message, the
 * question it answers, its run's model and sources (without their text), its citation report and
 * the names of the conversation's files. Another user's conversation, or a message not in it, is a 404.
 */
export async function readAnswerRows(
  db: Db,
  { conversationId, messageId, ownerId }: { conversationId: string; messageId: string; ownerId: OwnerId },
) {
  const conversation = await getConversation(db, { id: conversationId, ownerId });
  const inConversation = (id: string) => and(eq(messages.id, id), eq(messages.conversationId, conversationId));
  const [message] = await db.select().from(messages).where(inConversation(messageId)).limit(1);
  if (!message) throw new AppError("not_found:message", `Message ${messageId} not found in this conversation.`);
  const [question] = message.parentId
    ? await db.select().from(messages).where(inConversation(message.parentId)).limit(1)
    : [];
  const run = message.runId ? await getRun(db, { id: message.runId }) : null;
  const sources = run ? await listRunSources(db, { runId: run.id }) : [];
  const report = (await citationReportsOf(db, [message.id])).get(message.id) ?? null;
  const fileNames = await db
    .select({ id: files.id, filename: files.filename })
    .from(files)
    .where(eq(files.conversationId, conversationId));
  return { conversation, message, question: question ?? null, run, sources, report, fileNames };
}

/** A file's bytes; undefined when it was deleted. */
export async function fileBytes(db: Db, fileId: string): Promise<Buffer | undefined> {
  const [row] = await db.select({ bytes: files.bytes }).from(files).where(eq(files.id, fileId)).limit(1);
  return row?.bytes;
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

/** Rows a multi-row INSERT takes: well inside both dialects' limits on bound parameters. */
const INSERT_BATCH_ROWS = 500;

function batches<T>(rows: T[]): T[][] {
  return Array.from({ length: Math.ceil(rows.length / INSERT_BATCH_ROWS) }, (_, i) =>
    rows.slice(i * INSERT_BATCH_ROWS, (i + 1) * INSERT_BATCH_ROWS),
  );
}

/**
 * Inside the import's transaction: stores an imported conversation's rows, ids already new. The
 * messages in the order given (a parent before its children, the insertion order kept), many rows
 * a statement: one round trip per row made a long conversation slow to import on PostgreSQL.
 */
export async function insertConversationRows(
  tx: Db,
  rows: {
    conversation: typeof conversations.$inferInsert;
    files: (typeof files.$inferInsert)[];
    runs: {
      run: typeof runs.$inferInsert;
      events: (typeof runEvents.$inferInsert)[];
      sources?: (typeof runSources.$inferInsert)[];
      sourceParts?: (typeof runSourceParts.$inferInsert)[];
    }[];
    messages: (typeof messages.$inferInsert)[];
    interrupts: (typeof interrupts.$inferInsert)[];
    citationReports?: (typeof citationReports.$inferInsert)[];
  },
): Promise<void> {
  await tx.insert(conversations).values(rows.conversation);
  for (const file of rows.files) await tx.insert(files).values(file);
  for (const { run, events, sources, sourceParts } of rows.runs) {
    await tx.insert(runs).values(run);
    for (const batch of batches(events)) await tx.insert(runEvents).values(batch);
    for (const batch of batches(sources ?? [])) await tx.insert(runSources).values(batch);
    // A part holds a page's text: one a statement keeps a statement's size that of one part.
    for (const part of sourceParts ?? []) await tx.insert(runSourceParts).values(part);
  }
  for (const batch of batches(rows.messages)) await tx.insert(messages).values(batch);
  for (const held of rows.interrupts) await tx.insert(interrupts).values(held);
  for (const report of rows.citationReports ?? []) await tx.insert(citationReports).values(report);
}
