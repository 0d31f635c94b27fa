import "server-only";
import type { Db } from "@/lib/db/client";
import { fileBytes, readConversationRows } from "@/lib/db/conversation-transfer";
import type { OwnerId } from "@/lib/db/conversations";
import { exportedProject } from "./export-project";
import {
  type ConversationExport,
  citationReportColumns,
  conversationColumns,
  EXPORT_FORMAT,
  EXPORT_VERSION,
  type ExportedFile,
  exportedColumns,
  fileColumns,
  interruptColumns,
  messageColumns,
  runColumns,
  runEventColumns,
  runSourceColumns,
  runSourcePartColumns,
} from "./format";

/**
 * One of the owner's conversations as the version-3 document (lib/export/format.ts), with its
 * project and, unless `projectFiles` is false (the archive, which holds them in the project's own
 * document), the project's files; their content left out: that is read, file by file, only by
 * `exportChunks` with files. Another user's conversation is a 404.
 */
export async function exportConversation(
  db: Db,
  { id, ownerId, projectFiles = true }: { id: string; ownerId: OwnerId; projectFiles?: boolean },
): Promise<ConversationExport> {
  const rows = await readConversationRows(db, { id, ownerId });
  const { conversation, events, sources, sourceParts } = rows;
  const project = conversation.projectId ? await exportedProject(db, { id: conversation.projectId, ownerId }) : null;
  const document = {
    format: EXPORT_FORMAT,
    version: EXPORT_VERSION,
    exportedAt: Date.now(),
    conversation: exportedColumns(conversation, conversationColumns),
    messages: rows.messages.map((message) => exportedColumns(message, messageColumns)),
    runs: rows.runs.map((run) => ({
      ...exportedColumns(run, runColumns),
      events: events.filter((event) => event.runId === run.id).map((event) => exportedColumns(event, runEventColumns)),
      sources: sources
        .filter((source) => source.runId === run.id)
        .map((source) => ({
          ...exportedColumns(source, runSourceColumns),
          parts: sourceParts
            .filter((part) => part.runId === run.id && part.n === source.n)
            .map((part) => exportedColumns(part, runSourcePartColumns)),
        })),
    })),
    interrupts: rows.interrupts.map((interrupt) => exportedColumns(interrupt, interruptColumns)),
    files: rows.files.map((file) => exportedColumns(file, fileColumns)),
    citationReports: rows.citationReports.map((report) => exportedColumns(report, citationReportColumns)),
    project: project?.project ?? null,
    projectFiles: projectFiles ? (project?.files ?? []) : [],
  };
  // The rules above pick exactly the columns the format declares (tested in format.test.ts).
  return document as ConversationExport;
}

/** Bytes of a file encoded at a time: a multiple of 3, so the pieces of base64 join without padding. */
const BASE64_PIECE_BYTES = 3 * 64 * 1024;

/** A document whose file lists go last, so each file's content can be written as its turn comes. */
type WithFiles = { files: ExportedFile[]; projectFiles?: ExportedFile[] };

/**
 * The document as JSON text, in pieces: everything but the files at once, then, with `withFiles`,
 * each file's content (the conversation's, then its project's) read from the database and written
 * as base64 one file at a time — so an export holds one file, never all of them. A file deleted
 * meanwhile is written without `bytes` (the import says it was left out). `indent` as JSON.stringify's.
 */
export async function* exportChunks(
  db: Db,
  document: WithFiles,
  { withFiles, indent }: { withFiles: boolean; indent?: number },
): AsyncGenerator<string> {
  const { files, projectFiles, ...rest } = document;
  const lists = Object.entries(projectFiles === undefined ? { files } : { files, projectFiles });
  const space = indent ? " ".repeat(indent) : "";
  const newline = indent ? "\n" : "";
  const head = JSON.stringify(rest, null, indent);
  // `rest` is never empty: its text ends with the newline and brace the files go before.
  yield head.slice(0, head.length - 1 - newline.length);
  for (const [key, fileList] of lists) {
    yield `,${newline}${space}${JSON.stringify(key)}:${indent ? " " : ""}[`;
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
    yield `${fileList.length ? newline + space : ""}]`;
  }
  yield `${newline}}`;
}
