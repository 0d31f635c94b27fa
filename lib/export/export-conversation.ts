import "server-only";
import { and, asc, desc, eq, getTableColumns, inArray } from "drizzle-orm";
import type { Db } from "@/lib/db/client";
import { getConversation, hasMessages, type OwnerId, ownedBy } from "@/lib/db/conversations";
import { listMessages } from "@/lib/db/messages";
import { insertionOrder } from "@/lib/db/portable-sql";
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

/**
 * One of the owner's conversations as the version-1 document (lib/export/format.ts), its files'
 * content left out: that is read, file by file, only by `exportChunks` with files. Another user's
 * conversation is a 404.
 */
export async function exportConversation(
  db: Db,
  { id, ownerId }: { id: string; ownerId: OwnerId },
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
  const { bytes: _content, ...fileInfo } = getTableColumns(files);
  const fileRows = await db
    .select(fileInfo)
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
    files: fileRows.map((file) => exportedColumns(file, fileColumns)),
  };
  // The rules above pick exactly the columns the format declares (tested in format.test.ts).
  return document as ConversationExport;
}

/** Bytes of a file encoded at a time: a multiple of 3, so the pieces of base64 join without padding. */
const BASE64_PIECE_BYTES = 3 * 64 * 1024;

/**
 * The document as JSON text, in pieces: everything but the files at once, then, with `withFiles`,
 * each file's content read from the database and written as base64 one file at a time — so an
 * export holds one file, never all of them. A file deleted meanwhile is written without `bytes`
 * (the import says it was left out). `indent` as JSON.stringify's.
 */
export async function* exportChunks(
  db: Db,
  document: ConversationExport,
  { withFiles, indent }: { withFiles: boolean; indent?: number },
): AsyncGenerator<string> {
  const { files: fileList, ...rest } = document;
  const space = indent ? " ".repeat(indent) : "";
  const newline = indent ? "\n" : "";
  const head = JSON.stringify(rest, null, indent);
  // `rest` is never empty: its text ends with the newline and brace the files go before.
  yield `${head.slice(0, head.length - 1 - newline.length)},${newline}${space}"files":${indent ? " " : ""}[`;
  for (const [index, file] of fileList.entries()) {
    const separator = `${index ? "," : ""}${newline}${space}${space}`;
    const info = JSON.stringify(file);
    const content = withFiles ? await fileBytes(db, file.id) : undefined;
    if (!content) {
      yield separator + info;
      continue;
    }
    yield `${separator}${info.slice(0, -1)},"bytes":"`;
    for (let at = 0; at < content.length; at += BASE64_PIECE_BYTES) {
      yield content.subarray(at, at + BASE64_PIECE_BYTES).toString("base64");
    }
    yield '"}';
  }
  yield `${fileList.length ? newline + space : ""}]${newline}}`;
}

async function fileBytes(db: Db, fileId: string): Promise<Buffer | undefined> {
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
