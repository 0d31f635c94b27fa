import "server-only";
import type { Db } from "@/lib/db/client";
import { insertConversationRows } from "@/lib/db/conversation-transfer";
import type { OwnerId } from "@/lib/db/conversations";
import { PART_SEPARATOR, sha256 as textSha256 } from "@/lib/db/run-sources";
import type { Config } from "@/lib/env-config";
import { AppError } from "@/lib/errors";
import { type FileLimits, fileLimits, type QuotaRefusal, quotaRefusal } from "@/lib/files/quota";
import { isZip } from "@/lib/files/sniff";
import { inflatedSize, isEmptyZip, readEntry, type ZipEntry, zipEntries } from "@/lib/files/zip-entries";
import {
  type ConversationExport,
  EXPORT_FORMAT,
  type ExportedSource,
  exportDocumentSchema,
  PROJECT_FORMAT,
  READABLE_VERSIONS,
} from "./format";
import {
  because,
  bytesOf,
  type CheckedFile,
  checkFiles,
  claimedBy,
  type ImportReport,
  invalid,
  refusedByQuota,
  type SkipReason,
  unique,
  uniqueBy,
  versionRefusal,
} from "./import-checks";
import {
  filesToStore,
  type ImportSession,
  importProjectDocument,
  newImportSession,
  projectFilesRefusal,
  remember,
  type StoredProject,
  storeProject,
} from "./import-projects";
import { remapIds } from "./remap-ids";
import { sourcesFromSteps } from "./sources-from-steps";
import { MAX_ZIP_ENTRIES } from "./zip-writer";

/**
 * Imports conversation exports (docs/api.md, "Export and import") into the importing user's
 * account: one JSON document, or a ZIP made by the export of every conversation (its project
 * documents read first; lib/export/import-projects.ts). Nothing is overwritten: each conversation
 * and project gets new ids. A conversation that fails a check is skipped with its reason and the
 * others still import; an archive that cannot be read changes nothing.
 * Over 300 lines on purpose: the checks (archive, document, files, quotas) run in one order and
 * read as one sequence; storing the rows is lib/db/conversation-transfer.ts.
 */

export type { ImportReport, Skipped, SkipReason } from "./import-checks";

/** The archive's entries, its projects' documents first: their files are stored before a conversation names them. */
const projectsFirst = (entries: ZipEntry[]) =>
  [...entries].sort((a, b) => Number(b.name.startsWith("projects/")) - Number(a.name.startsWith("projects/")));

export async function importConversations(
  db: Db,
  { bytes, ownerId, config }: { bytes: Buffer; ownerId: OwnerId; config: Config },
): Promise<ImportReport> {
  const report: ImportReport = { imported: [], projects: [], skipped: [] };
  const session = newImportSession();
  if (isEmptyZip(bytes)) return report; // the export of an account without conversations
  if (!isZip(bytes)) {
    const document = parseJson(bytes);
    if (document === undefined) {
      throw new AppError(
        "bad_request:import_file",
        "The file is neither a conversation export (JSON) nor a ZIP of them.",
      );
    }
    await importDocument(db, { document, ownerId, config, report, session });
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
  for (const entry of projectsFirst(entries)) {
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
    } else await importDocument(db, { document, ownerId, config, report, session, entryName: entry.name });
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
    session,
    entryName,
  }: {
    document: unknown;
    ownerId: OwnerId;
    config: Config;
    report: ImportReport;
    session: ImportSession;
    entryName?: string;
  },
): Promise<void> {
  const head = document as { format?: unknown; conversation?: { title?: unknown }; project?: { name?: unknown } };
  const isProject = head?.format === PROJECT_FORMAT;
  const rawTitle = isProject ? head.project?.name : head?.conversation?.title;
  const title = typeof rawTitle === "string" ? rawTitle.slice(0, 200) : undefined;
  const skip = (why: SkipReason) =>
    report.skipped.push({ ...(title ? { title } : {}), ...(entryName ? { entry: entryName } : {}), ...why });
  if (isProject) {
    await importProjectDocument(db, { document, ownerId, config, session, report, skip });
    return;
  }
  const checked = checkDocument(document, config);
  if ("code" in checked) {
    skip(checked);
    return;
  }
  const limits = fileLimits(config);
  const { project } = checked;
  const projectFiles = project ? filesToStore(session, checked.projectFiles) : [];
  // At once when its files cannot fit (by the sizes they claim), before they are decoded and checked.
  const claimed = claimedBy(checked.files);
  const claimedInProject = claimedBy(projectFiles);
  const early =
    (await quotaRefusal(db, {
      ownerId,
      adding: { files: claimed.files, bytes: claimed.bytes + claimedInProject.bytes },
      limits,
      lock: false,
    })) ??
    (project ? await projectFilesRefusal(db, { session, project, adding: claimedInProject.files, limits }) : null);
  if (early) {
    skip(refusedByQuota(early, "conversation"));
    return;
  }
  const stored = await checkFiles(checked.files, config);
  if ("code" in stored) {
    skip(stored);
    return;
  }
  const storedInProject = await checkFiles(projectFiles, config);
  if ("code" in storedInProject) {
    skip(storedInProject);
    return;
  }
  const outcome = await storeConversation(db, {
    document: checked,
    files: stored,
    projectFiles: storedInProject,
    session,
    ownerId,
    limits,
  });
  if ("refused" in outcome) {
    skip(refusedByQuota(outcome.refused, "conversation"));
    return;
  }
  if (outcome.project) remember(session, report, outcome.project);
  report.imported.push({ title: checked.conversation.title, id: outcome.id });
  const count = checked.files.length - stored.length + projectFiles.length - storedInProject.length;
  if (count > 0) {
    skip(
      because(
        "bad_request:import_files_missing",
        `${count} attached or fetched file(s) were exported without their content; the conversation was imported without them.`,
        { count },
      ),
    );
  }
}

/** The document, valid and self-consistent, or why not. */
function checkDocument(document: unknown, config: Config): ConversationExport | SkipReason {
  const head = document as { format?: unknown; version?: unknown; project?: unknown; projectFiles?: unknown } | null;
  if (typeof head !== "object" || head === null || head.format !== EXPORT_FORMAT) {
    return because(
      "bad_request:import_not_export",
      `not a conversation export (its "format" is not "${EXPORT_FORMAT}").`,
      { format: EXPORT_FORMAT },
    );
  }
  const refused = versionRefusal(head.version, READABLE_VERSIONS);
  if (refused) return refused;
  // The version's own fields: an older document naming a project was not written by this server.
  if (head.version !== 3 && (head.project !== undefined || head.projectFiles !== undefined)) {
    return invalid(`a version-${head.version} export has no project (projects are exported since version 3).`);
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
    unique([...value.files, ...value.projectFiles], "file"),
    value.project === null && value.projectFiles.length > 0 ? "it has project files but no project." : null,
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

/**
 * Stores the conversation under new ids, in one transaction, in its project (made first when this
 * import has not made it yet, with the project's files it has not stored yet); returns its id and
 * the project stored. Its files are counted against the owner's quotas first, in the same
 * transaction: over one, nothing is stored.
 */
async function storeConversation(
  db: Db,
  {
    document,
    files: fileRows,
    projectFiles,
    session,
    ownerId,
    limits,
  }: {
    document: ConversationExport;
    files: CheckedFile[];
    projectFiles: CheckedFile[];
    session: ImportSession;
    ownerId: OwnerId;
    limits: FileLimits;
  },
): Promise<{ id: string; project: StoredProject | null } | { refused: QuotaRefusal }> {
  const kept = new Set(fileRows.map((file) => file.id));
  const remap = remapIds(
    [
      document.conversation.id,
      ...document.messages.map((message) => message.id),
      ...document.runs.map((run) => run.id),
      ...fileRows.map((file) => file.id),
      ...projectFiles.map((file) => file.id),
      ...document.interrupts.map((held) => held.id),
    ],
    // A source read from a project file stored earlier in this import names it by its new id.
    session.projectFiles,
  );
  const { conversation, project: exportedProject } = document;
  const conversationId = remap.id(conversation.id);
  const now = Date.now();
  return db.transaction(async (tx) => {
    const adding = { files: fileRows.length, bytes: bytesOf(fileRows) + bytesOf(projectFiles) };
    const refused =
      (await quotaRefusal(tx, { ownerId, adding, limits })) ??
      (exportedProject
        ? await projectFilesRefusal(tx, { session, project: exportedProject, adding: projectFiles.length, limits })
        : null);
    if (refused) return { refused };
    const project = exportedProject
      ? await storeProject(tx, { session, project: exportedProject, files: projectFiles, ownerId, remap })
      : null;
    await insertConversationRows(tx, {
      conversation: {
        ...conversation,
        id: conversationId,
        userId: ownerId,
        projectId: project?.id ?? null,
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
    return { id: conversationId, project };
  });
}
