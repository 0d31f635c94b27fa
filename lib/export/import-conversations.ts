import "server-only";
import type { Db } from "@/lib/db/client";
import { insertConversationRows } from "@/lib/db/conversation-transfer";
import type { OwnerId } from "@/lib/db/conversations";
import { sha256 } from "@/lib/db/files";
import { PART_SEPARATOR, sha256 as textSha256 } from "@/lib/db/run-sources";
import type { StoredFile } from "@/lib/db/schema";
import type { Config } from "@/lib/env-config";
import { AppError, type ServerErrorCode } from "@/lib/errors";
import { type FileLimits, fileLimits, type QuotaRefusal, quotaError, quotaRefusal } from "@/lib/files/quota";
import { isZip } from "@/lib/files/sniff";
import { checkUpload } from "@/lib/files/uploads";
import { inflatedSize, isEmptyZip, readEntry, type ZipEntry, zipEntries } from "@/lib/files/zip-entries";
import {
  type ConversationExport,
  EXPORT_FORMAT,
  type ExportedSource,
  exportDocumentSchema,
  READABLE_VERSIONS,
} from "./format";
import { remapIds } from "./remap-ids";
import { sourcesFromSteps } from "./sources-from-steps";
import { MAX_ZIP_ENTRIES } from "./zip-writer";

/**
 * Imports conversation exports (docs/api.md, "Export and import") into the importing user's
 * account: one JSON document, or a ZIP made by the export of every conversation. Nothing is
 * overwritten: each conversation gets new ids. A conversation that fails a check is skipped with
 * its reason and the others still import; an archive that cannot be read changes nothing.
 * Over 300 lines on purpose: the checks (archive, document, files, quotas) run in one order and
 * read as one sequence; storing the rows is lib/db/conversation-transfer.ts.
 */

/** Why something was not imported: a code the UI words in its language, the English reason, its details. */
export interface SkipReason {
  code: ServerErrorCode;
  reason: string;
  details?: Record<string, unknown>;
}

/** `entry`: the ZIP entry it came from; `title`: the conversation's, when its document has one. */
export type Skipped = SkipReason & { title?: string; entry?: string };

export interface ImportReport {
  imported: { title: string; id: string }[];
  skipped: Skipped[];
}

const because = (code: ServerErrorCode, reason: string, details?: Record<string, unknown>): SkipReason => ({
  code,
  reason,
  ...(details ? { details } : {}),
});

const invalid = (problem: string): SkipReason =>
  because("bad_request:import_invalid", `invalid export: ${problem}`, { problem });

export async function importConversations(
  db: Db,
  { bytes, ownerId, config }: { bytes: Buffer; ownerId: OwnerId; config: Config },
): Promise<ImportReport> {
  const report: ImportReport = { imported: [], skipped: [] };
  if (isEmptyZip(bytes)) return report; // the export of an account without conversations
  if (!isZip(bytes)) {
    const document = parseJson(bytes);
    if (document === undefined) {
      throw new AppError(
        "bad_request:import_file",
        "The file is neither a conversation export (JSON) nor a ZIP of them.",
      );
    }
    await importDocument(db, { document, ownerId, config, report });
    return report;
  }
  const entries = zipEntries(bytes, MAX_ZIP_ENTRIES);
  if (!entries) throw brokenArchive();
  // Every entry is inflated first, under the total cap, before anything is stored; a .json entry
  // is inflated again, one at a time, to be read (so no more than one is held at once).
  let total: number | null;
  try {
    total = await inflatedSize(bytes, entries, config.IMPORT_MAX_INFLATED_MB * 1024 * 1024);
  } catch {
    throw brokenArchive();
  }
  if (total === null) {
    throw new AppError(
      "payload_too_large:import_archive",
      `The archive unpacks to more than ${config.IMPORT_MAX_INFLATED_MB} MB (IMPORT_MAX_INFLATED_MB). Nothing was imported.`,
      { details: { maxBytes: config.IMPORT_MAX_INFLATED_MB * 1024 * 1024 } },
    );
  }
  for (const entry of entries) {
    if (entry.name.endsWith("/") || entry.name.toLowerCase().endsWith(".md")) continue;
    if (!entry.name.toLowerCase().endsWith(".json")) {
      report.skipped.push({
        entry: entry.name,
        ...because("bad_request:import_entry_type", "not a conversation export (only .json entries are read)."),
      });
      continue;
    }
    const document = await readDocument(bytes, entry, config.IMPORT_MAX_MB * 1024 * 1024);
    if (document === TOO_LARGE) {
      report.skipped.push({
        entry: entry.name,
        ...because("payload_too_large:import_entry", `larger than ${config.IMPORT_MAX_MB} MB (IMPORT_MAX_MB).`, {
          maxBytes: config.IMPORT_MAX_MB * 1024 * 1024,
        }),
      });
      continue;
    }
    if (document === undefined) {
      report.skipped.push({ entry: entry.name, ...because("bad_request:import_entry_json", "not valid JSON.") });
    } else await importDocument(db, { document, ownerId, config, report, entryName: entry.name });
  }
  return report;
}

const brokenArchive = () =>
  new AppError(
    "bad_request:import_archive",
    "The ZIP archive is damaged or not one this app reads. Nothing was imported.",
  );

const TOO_LARGE = Symbol("too large");

/** A `.json` entry parsed; its inflated bytes are let go before the conversation is checked and stored. */
async function readDocument(bytes: Buffer, entry: ZipEntry, maxBytes: number): Promise<unknown> {
  const content = await readEntry(bytes, entry, maxBytes);
  return content === null ? TOO_LARGE : parseJson(content);
}

function parseJson(bytes: Buffer): unknown {
  try {
    return JSON.parse(bytes.toString("utf8"));
  } catch {
    return undefined;
  }
}

async function importDocument(
  db: Db,
  {
    document,
    ownerId,
    config,
    report,
    entryName,
  }: { document: unknown; ownerId: OwnerId; config: Config; report: ImportReport; entryName?: string },
): Promise<void> {
  const rawTitle = (document as { conversation?: { title?: unknown } } | null)?.conversation?.title;
  const title = typeof rawTitle === "string" ? rawTitle.slice(0, 200) : undefined;
  const skip = (why: SkipReason) =>
    report.skipped.push({ ...(title ? { title } : {}), ...(entryName ? { entry: entryName } : {}), ...why });
  const checked = checkDocument(document, config);
  if ("code" in checked) {
    skip(checked);
    return;
  }
  const limits = fileLimits(config);
  // At once when its files cannot fit (by the sizes it claims), before they are decoded and checked.
  const withContent = checked.files.filter((file) => file.bytes !== undefined);
  const claimed = { files: withContent.length, bytes: withContent.reduce((total, file) => total + file.size, 0) };
  const early = await quotaRefusal(db, { ownerId, adding: claimed, limits, lock: false });
  if (early) {
    skip(refusedByQuota(early));
    return;
  }
  const stored = await checkFiles(checked, config);
  if ("code" in stored) {
    skip(stored);
    return;
  }
  const outcome = await storeConversation(db, { document: checked, files: stored, ownerId, limits });
  if (typeof outcome !== "string") {
    skip(refusedByQuota(outcome.refused));
    return;
  }
  const id = outcome;
  report.imported.push({ title: checked.conversation.title, id });
  if (checked.files.length > stored.length) {
    const count = checked.files.length - stored.length;
    skip(
      because(
        "bad_request:import_files_missing",
        `${count} attached or fetched file(s) were exported without their content; the conversation was imported without them.`,
        { count },
      ),
    );
  }
}

function refusedByQuota(refused: QuotaRefusal): SkipReason {
  const error = quotaError(refused);
  return because(error.code, `${error.message} The conversation was not imported.`, error.details as never);
}

/** The document, valid and self-consistent, or why not. */
function checkDocument(document: unknown, config: Config): ConversationExport | SkipReason {
  const head = document as { format?: unknown; version?: unknown } | null;
  if (typeof head !== "object" || head === null || head.format !== EXPORT_FORMAT) {
    return because(
      "bad_request:import_not_export",
      `not a conversation export (its "format" is not "${EXPORT_FORMAT}").`,
      { format: EXPORT_FORMAT },
    );
  }
  if (!READABLE_VERSIONS.some((readable) => readable === head.version)) {
    const version = JSON.stringify(head.version) ?? "none";
    const supported = READABLE_VERSIONS.join(", ");
    return because(
      "bad_request:import_version",
      `export version ${version} is not one this server reads (versions ${supported}).`,
      { version, supported },
    );
  }
  const parsed = exportDocumentSchema({
    maxMessages: config.IMPORT_MAX_MESSAGES,
    maxInstructionsChars: config.MAX_INSTRUCTIONS_CHARS,
  }).safeParse(document);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    return invalid(`${issue?.path.join(".") || "document"}: ${issue?.message ?? "invalid"}.`);
  }
  const value = parsed.data;
  const messageIds = new Set<string>();
  for (const message of value.messages) {
    if (messageIds.has(message.id)) return invalid(`message ${message.id} appears twice.`);
    // Parents first: what makes the tree a tree, and the order they are stored in.
    if (message.parentId !== null && !messageIds.has(message.parentId)) {
      return invalid(`message ${message.id} comes before its parent ${message.parentId}.`);
    }
    messageIds.add(message.id);
  }
  const runIds = new Set(value.runs.map((run) => run.id));
  const answerIds = new Set(value.messages.filter((message) => message.role === "assistant").map((m) => m.id));
  const fileIds = new Set(value.files.map((file) => file.id));
  const problems = [
    unique(value.runs, "run"),
    unique(value.files, "file"),
    unique(value.interrupts, "follow-up"),
    ...[value.conversation.activeLeafId, value.conversation.summaryThrough].map((ref) =>
      ref === null || messageIds.has(ref) ? null : `the conversation names message ${ref}, which is not in it.`,
    ),
    ...value.messages.map((message) =>
      message.runId !== null && !runIds.has(message.runId)
        ? `message ${message.id} names run ${message.runId}, which is not in it.`
        : (message.attachmentIds ?? []).some((fileId) => !fileIds.has(fileId))
          ? `message ${message.id} names a file that is not in it.`
          : null,
    ),
    ...value.runs.map((run) =>
      run.questionId !== null && !messageIds.has(run.questionId)
        ? `run ${run.id} answers message ${run.questionId}, which is not in it.`
        : new Set(run.events.map((event) => event.seq)).size !== run.events.length
          ? `run ${run.id} has two events with the same number.`
          : null,
    ),
    ...value.interrupts.map((held) =>
      runIds.has(held.runId) ? null : `follow-up ${held.id} names run ${held.runId}, which is not in it.`,
    ),
    ...value.runs.map((run) => sourceProblem(run.id, run.sources)),
    uniqueBy(
      value.citationReports,
      (report) => report.messageId,
      (id) => `message ${id} has two citation reports.`,
    ),
    ...value.citationReports.map(({ messageId }) =>
      answerIds.has(messageId)
        ? null
        : messageIds.has(messageId)
          ? `a citation report is of message ${messageId}, which is not an answer.`
          : `a citation report names message ${messageId}, which is not in it.`,
    ),
  ];
  const problem = problems.find((found) => found !== null);
  if (problem) return invalid(problem);
  if (value.runs.some((run) => run.status === "running")) {
    return because(
      "conflict:import_running",
      "it was exported while an answer was being written; export it again once the answer is done.",
    );
  }
  return value;
}

function unique(rows: { id: string }[], what: string): string | null {
  return uniqueBy(
    rows,
    (row) => row.id,
    (id) => `${what} ${id} appears twice.`,
  );
}

function uniqueBy<Row, Key>(rows: Row[], key: (row: Row) => Key, twice: (key: Key) => string): string | null {
  const seen = new Set<Key>();
  for (const row of rows) {
    if (seen.has(key(row))) return twice(key(row));
    seen.add(key(row));
  }
  return null;
}

/**
 * What is wrong with a run's sources: a number twice, or a source whose parts' text is not the
 * text its hash and length were taken of (text left out or changed: its citations could no longer
 * be checked against what was read).
 */
function sourceProblem(runId: string, sources: ExportedSource[]): string | null {
  const twice = uniqueBy(
    sources,
    (source) => source.n,
    (n) => `run ${runId} has two sources numbered ${n}.`,
  );
  if (twice) return twice;
  for (const source of sources) {
    const text = source.parts.map((part) => part.text).join(PART_SEPARATOR);
    if (text.length !== source.chars || textSha256(text) !== source.contentHash) {
      return source.parts.length === 0 && source.chars > 0
        ? `source ${source.n} of run ${runId} has no text (its parts are missing).`
        : `source ${source.n} of run ${runId}: its text does not match its content hash (damaged export).`;
    }
  }
  return null;
}

/** A file that passed the checks, without its bytes: they are decoded again, one file at a time, to be stored. */
type CheckedFile = Omit<StoredFile, "conversationId" | "projectId" | "indexedAt" | "bytes"> & { base64: string };

/**
 * The files whose content the export holds, through the same checks as an upload; the first one
 * refused (or whose content is not what its SHA-256 says) skips the conversation. One decoded file
 * is held at a time: the document already holds them all, as base64.
 */
async function checkFiles(document: ConversationExport, config: Config): Promise<CheckedFile[] | SkipReason> {
  const checked: CheckedFile[] = [];
  for (const file of document.files) {
    if (file.bytes === undefined) continue;
    const bytes = Buffer.from(file.bytes, "base64");
    try {
      const upload = await checkUpload({
        filename: file.filename,
        bytes,
        maxBytes: config.MAX_FETCH_MB * 1024 * 1024,
        imageLimits: { maxPixels: config.MAX_IMAGE_PIXELS, maxFrames: config.MAX_IMAGE_FRAMES },
      });
      const { bytes: base64, ...meta } = file;
      const row = { ...meta, ...upload, base64, size: bytes.length, sha256: sha256(bytes) };
      if (row.sha256 !== file.sha256) {
        return because(
          "bad_request:import_file_damaged",
          `file ${JSON.stringify(file.filename)}: its content does not match its SHA-256 (damaged export).`,
          { filename: file.filename },
        );
      }
      checked.push(row);
    } catch (error) {
      if (!(error instanceof AppError)) throw error;
      return because(
        "bad_request:import_file_refused",
        `file ${JSON.stringify(file.filename)} was refused: ${error.message}`,
        {
          filename: file.filename,
          refusal: { code: error.code, message: error.message, details: error.details },
        },
      );
    }
  }
  return checked;
}

/**
 * Stores the conversation under new ids, in one transaction; returns its id. Its files are counted
 * against the owner's quotas first, in the same transaction: over one, nothing is stored.
 */
async function storeConversation(
  db: Db,
  {
    document,
    files: fileRows,
    ownerId,
    limits,
  }: { document: ConversationExport; files: CheckedFile[]; ownerId: OwnerId; limits: FileLimits },
): Promise<string | { refused: QuotaRefusal }> {
  const kept = new Set(fileRows.map((file) => file.id));
  const remap = remapIds([
    document.conversation.id,
    ...document.messages.map((message) => message.id),
    ...document.runs.map((run) => run.id),
    ...fileRows.map((file) => file.id),
    ...document.interrupts.map((held) => held.id),
  ]);
  const { conversation } = document;
  const conversationId = remap.id(conversation.id);
  const now = Date.now();
  return db.transaction(async (tx) => {
    const adding = { files: fileRows.length, bytes: fileRows.reduce((total, file) => total + file.size, 0) };
    const refused = await quotaRefusal(tx, { ownerId, adding, limits });
    if (refused) return { refused };
    await insertConversationRows(tx, {
      conversation: {
        ...conversation,
        id: conversationId,
        userId: ownerId,
        // Never shown, yet sent ahead of every later turn: the next turn compacts again if it needs to.
        summary: null,
        summaryThrough: null,
        activeLeafId: remap.nullable(conversation.activeLeafId),
        // Never later than now: a time from the future would keep it atop the list for good.
        createdAt: Math.min(conversation.createdAt, now),
        updatedAt: Math.min(conversation.updatedAt, now),
      },
      files: fileRows.map(({ base64, ...file }) => ({
        ...file,
        bytes: Buffer.from(base64, "base64"),
        id: remap.id(file.id),
        conversationId,
      })),
      runs: document.runs.map(({ events, sources: exported, ...run }) => {
        const runId = remap.id(run.id);
        const remapped = events.map((event) => ({ ...event, data: remap.inValue(event.data) as typeof event.data }));
        // Version 1 had no source store: its steps hold what each read.
        const sources =
          document.version === 1
            ? sourcesFromSteps(runId, remapped)
            : exported.map((source) => ({ ...source, url: remap.inText(source.url) }));
        return {
          run: { ...run, id: runId, conversationId, questionId: remap.nullable(run.questionId) },
          events: remapped.map((event) => ({ ...event, runId, type: event.type as never, data: event.data as never })),
          sources: sources.map(({ parts, ...source }) => ({ ...source, runId })),
          sourceParts: sources.flatMap((source) =>
            source.parts.map((part, seq) => ({ ...part, runId, n: source.n, seq })),
          ),
        };
      }),
      messages: document.messages.map((message) => {
        const attachments = (message.attachmentIds ?? []).filter((fileId) => kept.has(fileId)).map(remap.id);
        return {
          ...message,
          id: remap.id(message.id),
          conversationId,
          parentId: remap.nullable(message.parentId),
          runId: remap.nullable(message.runId),
          content: remap.inText(message.content),
          attachmentIds: attachments.length ? attachments : null,
        };
      }),
      interrupts: document.interrupts.map((held) => ({
        ...held,
        id: remap.id(held.id),
        conversationId,
        runId: remap.id(held.runId),
      })),
      citationReports: document.citationReports.map(({ messageId, report }) => ({
        messageId: remap.id(messageId),
        report: remap.inValue(report) as typeof report,
        checkedAt: report.checkedAt,
      })),
    });
    return conversationId;
  });
}
