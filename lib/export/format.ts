import { z } from "zod";
import { MAX_ATTACHMENTS_PER_MESSAGE, MAX_MESSAGE_CHARS } from "@/lib/chat/message-limits";
import { chatSettingsSchema } from "@/lib/chat-settings";
import {
  type Conversation,
  fileOrigins,
  type HeldInterrupt,
  type Message,
  messageRoles,
  messageStatuses,
  type Project,
  type Run,
  type RunSourcePartRow,
  type RunSourceRow,
  runModes,
  runStatuses,
  type StoredFile,
  type StoredRunEvent,
} from "@/lib/db/schema";
import { TOOL_GROUP_ID } from "@/lib/mcp/tool-groups";
import { type CitationReport, citationReportSchema } from "@/lib/protocol/citations";
import { isRunEventName } from "@/lib/protocol/run-events";
import { runEventDataSchemas } from "./event-schema";

/**
 * The conversation export, version 3 (docs/api.md, "Export and import"): every stored column of a
 * conversation, of what it owns and of its project, by the column rules below, so a round trip
 * through export and import gives the same conversation under new ids. Version 2 added each run's
 * stored sources and each answer's citation report, version 3 the conversation's project; a
 * version-1 or -2 document (without them) still imports. The archive of every conversation holds
 * each project once, as a project document of its own.
 */

export const EXPORT_FORMAT = "ollama-web.conversation";
export const PROJECT_FORMAT = "ollama-web.project";
export const EXPORT_VERSION = 3;
/** The versions the importer reads: every one this server has written. */
export const READABLE_VERSIONS = [1, 2, 3] as const;
/** The versions of a project document: projects are exported since version 3. */
export const READABLE_PROJECT_VERSIONS = [3] as const;

/** A column is exported under its own name, or left out for the reason given. */
export type ColumnRule = "exported" | { omitted: string };
type ColumnRules<Row> = { [Column in keyof Row]-?: ColumnRule };

const OWNED = { omitted: "the document is one conversation: everything in it belongs to it" };

export const conversationColumns: ColumnRules<Conversation> = {
  id: "exported",
  userId: { omitted: "an import belongs to the user who imports it" },
  title: "exported",
  model: "exported",
  summary: "exported",
  summaryThrough: "exported",
  planFirst: "exported",
  disabledToolGroups: "exported",
  activeLeafId: "exported",
  settings: "exported",
  pinned: "exported",
  archived: "exported",
  projectId: { omitted: "the conversation's project is the document's `project`, under its exported id" },
  private: "exported",
  createdAt: "exported",
  updatedAt: "exported",
};

export const projectColumns: ColumnRules<Project> = {
  id: "exported",
  userId: { omitted: "an import belongs to the user who imports it" },
  name: "exported",
  instructions: "exported",
  model: "exported",
  presetId: {
    omitted:
      "presets are not exported: `preset` names the project's, and an import takes the importer's own preset of that name, or none",
  },
  collapsed: "exported",
  createdAt: "exported",
  updatedAt: "exported",
};

export const messageColumns: ColumnRules<Message> = {
  id: "exported",
  conversationId: OWNED,
  parentId: "exported",
  role: "exported",
  content: "exported",
  status: "exported",
  runId: "exported",
  attachmentIds: "exported",
  createdAt: "exported",
};

export const runColumns: ColumnRules<Run> = {
  id: "exported",
  conversationId: OWNED,
  status: "exported",
  mode: "exported",
  model: "exported",
  questionId: "exported",
  iterations: "exported",
  inputTokens: "exported",
  outputTokens: "exported",
  generationMs: "exported",
  elapsedMs: "exported",
  error: "exported",
  fallback: "exported",
  partialAnswer: "exported",
  startedAt: "exported",
  finishedAt: "exported",
  instanceId: { omitted: "the app instance that ran it belongs to the deployment that exported it" },
};

export const runEventColumns: ColumnRules<StoredRunEvent> = {
  runId: { omitted: "events are listed under their run" },
  seq: "exported",
  type: "exported",
  data: "exported",
  createdAt: "exported",
};

export const fileColumns: ColumnRules<StoredFile> = {
  id: "exported",
  conversationId: { omitted: "a file is listed under what holds it: the conversation (`files`) or its project" },
  origin: "exported",
  filename: "exported",
  mime: "exported",
  size: "exported",
  sha256: "exported",
  pageCount: "exported",
  sourceUrl: "exported",
  projectId: { omitted: "a file is listed under what holds it: the conversation (`files`) or its project" },
  indexedAt: { omitted: "the library index is made again from the file where it is imported" },
  indexClaimedBy: { omitted: "the app instance indexing it belongs to the deployment that exported it" },
  bytes: { omitted: "the file itself: in `bytes` as base64 only when the export includes files" },
  createdAt: "exported",
};

export const runSourceColumns: ColumnRules<RunSourceRow> = {
  runId: { omitted: "sources are listed under their run" },
  n: "exported",
  url: "exported",
  title: "exported",
  retrievedAt: "exported",
  contentHash: "exported",
  chars: "exported",
};

export const runSourcePartColumns: ColumnRules<RunSourcePartRow> = {
  runId: { omitted: "parts are listed under their source, under its run" },
  n: { omitted: "parts are listed under their source, under its run" },
  seq: { omitted: "parts are listed in the order read, which is their number" },
  text: "exported",
  pageFirst: "exported",
  pageLast: "exported",
  pageTotal: "exported",
};

/** A row of citation_reports (its table is lib/db's; format.test.ts holds the two to the same columns). */
interface CitationReportRow {
  messageId: string;
  report: CitationReport;
  checkedAt: number;
}

export const citationReportColumns: ColumnRules<CitationReportRow> = {
  messageId: "exported",
  report: "exported",
  checkedAt: { omitted: "the report's own checkedAt, kept apart only to be sorted by" },
};

export const interruptColumns: ColumnRules<HeldInterrupt> = {
  id: "exported",
  conversationId: OWNED,
  runId: "exported",
  text: "exported",
  createdAt: "exported",
};

/** The row's exported columns, nothing else. */
export function exportedColumns<Row extends object>(row: Row, rules: ColumnRules<Row>): Partial<Row> {
  return Object.fromEntries(
    Object.entries(row).filter(([column]) => rules[column as keyof Row] === "exported"),
  ) as Partial<Row>;
}

const ID = /^[A-Za-z0-9_-]{1,64}$/;
const id = z.string().regex(ID, "must be an id of 1 to 64 letters, digits, _ or -");
const time = z.number().int().min(0).max(8_640_000_000_000_000);
const count = z.number().int().min(0).max(Number.MAX_SAFE_INTEGER);

const event = z
  .strictObject({
    seq: z.number().int().min(1),
    type: z.string().refine(isRunEventName, "must be a run event's name"),
    data: z.record(z.string(), z.unknown()),
    createdAt: time,
  })
  .superRefine((value, context) => {
    if (!isRunEventName(value.type)) return;
    const result = runEventDataSchemas[value.type].safeParse(value.data);
    for (const issue of result.error?.issues ?? []) {
      context.addIssue({ code: "custom", path: ["data", ...issue.path], message: issue.message });
    }
  });

const page = count.nullable();

/** A stored source of a run with the text of every part read, in the order read. */
const source = z.strictObject({
  n: z.number().int().min(1),
  url: z
    .string()
    .max(4096)
    .regex(/^(?:https?:\/\/|attachment:)\S/i, "must be an http(s) URL or attachment:<id>"),
  title: z.string(),
  retrievedAt: time,
  contentHash: z.string().regex(/^[0-9a-f]{64}$/, "must be a SHA-256 in hex"),
  chars: count,
  parts: z.array(
    z.strictObject({
      // The store keeps no empty part: one here was not read from a source.
      text: z.string().min(1, "a part of a source holds the text read: it cannot be empty"),
      pageFirst: page,
      pageLast: page,
      pageTotal: page,
    }),
  ),
});

const file = z.strictObject({
  id,
  origin: z.enum(fileOrigins),
  filename: z.string().min(1).max(255),
  mime: z.string().min(1).max(200),
  size: count,
  sha256: z.string().regex(/^[0-9a-f]{64}$/, "must be a SHA-256 in hex"),
  pageCount: count.nullable(),
  sourceUrl: z
    .url({ protocol: /^https?$/ })
    .max(4096)
    .nullable(),
  createdAt: time,
  bytes: z.base64().optional(),
});

/** A project as its conversations and its own document carry it (its files apart, beside it). */
const projectSchema = (maxInstructionsChars: number) =>
  z.strictObject({
    id,
    // The limits of POST /api/projects and of presets' names.
    name: z.string().trim().min(1).max(100),
    instructions: z.string().max(maxInstructionsChars, `must be at most ${maxInstructionsChars} characters`),
    model: z.string().min(1).max(200).nullable(),
    preset: z.string().trim().min(1).max(100).nullable(),
    collapsed: z.boolean(),
    createdAt: time,
    updatedAt: time,
  });

export interface DocumentLimits {
  /** IMPORT_MAX_MESSAGES */
  maxMessages: number;
  /** MAX_INSTRUCTIONS_CHARS */
  maxInstructionsChars: number;
}

/** The whole document as the importer reads it; strict, so a column nobody reads is an error, not lost. */
export function exportDocumentSchema({ maxMessages, maxInstructionsChars }: DocumentLimits) {
  return z.strictObject({
    format: z.literal(EXPORT_FORMAT),
    version: z.literal(READABLE_VERSIONS),
    exportedAt: time,
    conversation: z.strictObject({
      id,
      title: z.string().trim().min(1).max(200),
      model: z.string().min(1).max(200).nullable(),
      summary: z.string().nullable(),
      summaryThrough: id.nullable(),
      planFirst: z.boolean(),
      disabledToolGroups: z.array(z.string().regex(TOOL_GROUP_ID, "must be web or mcp:<server>")).max(100),
      activeLeafId: id.nullable(),
      // NUM_CTX is this server's: each turn caps the context anyway (docs/architecture.md).
      settings: chatSettingsSchema({ maxInstructionsChars, maxNumCtx: Number.MAX_SAFE_INTEGER }),
      pinned: z.boolean().default(false),
      archived: z.boolean().default(false),
      private: z.boolean().default(false),
      createdAt: time,
      updatedAt: time,
    }),
    messages: z
      .array(
        z
          .strictObject({
            id,
            parentId: id.nullable(),
            role: z.enum(messageRoles),
            content: z.string(),
            status: z.enum(messageStatuses),
            runId: id.nullable(),
            attachmentIds: z.array(id).max(100).nullable(),
            createdAt: time,
          })
          // A question is sent to the model again (regenerate): it may hold no more than one asked here.
          .refine(
            (message) =>
              message.role !== "user" ||
              (message.content.length <= MAX_MESSAGE_CHARS &&
                (message.attachmentIds?.length ?? 0) <= MAX_ATTACHMENTS_PER_MESSAGE),
            `a question holds at most ${MAX_MESSAGE_CHARS} characters and ${MAX_ATTACHMENTS_PER_MESSAGE} files`,
          ),
      )
      .min(1, "a conversation without messages has nothing to import")
      .max(maxMessages, `more than ${maxMessages} messages (IMPORT_MAX_MESSAGES)`),
    runs: z.array(
      z.strictObject({
        id,
        status: z.enum(runStatuses),
        mode: z.enum(runModes),
        model: z.string().min(1).max(200),
        questionId: id.nullable(),
        iterations: count,
        inputTokens: count,
        outputTokens: count,
        generationMs: count.nullable(),
        elapsedMs: count.nullable(),
        error: z.string().nullable(),
        fallback: z.boolean(),
        partialAnswer: z.string().nullable(),
        startedAt: time,
        finishedAt: time.nullable(),
        events: z.array(event),
        // Version 1 has none.
        sources: z.array(source).default([]),
      }),
    ),
    // A held follow-up is sent to the model as a question is: no longer than one typed.
    interrupts: z.array(
      z.strictObject({
        id,
        runId: id,
        text: z.string().min(1).max(MAX_MESSAGE_CHARS, `a follow-up holds at most ${MAX_MESSAGE_CHARS} characters`),
        createdAt: time,
      }),
    ),
    files: z.array(file),
    // Version 1 has none.
    citationReports: z.array(z.strictObject({ messageId: id, report: citationReportSchema })).default([]),
    // Versions 1 and 2 have none. In the archive of every conversation `projectFiles` is empty:
    // the project's own document there holds them.
    project: projectSchema(maxInstructionsChars).nullable().default(null),
    projectFiles: z.array(file).default([]),
  });
}

/** A project document, which the archive of every conversation holds once for each of the user's projects. */
export function projectDocumentSchema({ maxInstructionsChars }: Pick<DocumentLimits, "maxInstructionsChars">) {
  return z.strictObject({
    format: z.literal(PROJECT_FORMAT),
    version: z.literal(READABLE_PROJECT_VERSIONS),
    exportedAt: time,
    project: projectSchema(maxInstructionsChars),
    files: z.array(file),
  });
}

export type ConversationExport = z.infer<ReturnType<typeof exportDocumentSchema>>;
export type ExportedFile = ConversationExport["files"][number];
export type ExportedRun = ConversationExport["runs"][number];
export type ExportedSource = ExportedRun["sources"][number];
export type ExportedProject = z.infer<ReturnType<typeof projectSchema>>;
export type ProjectExport = z.infer<ReturnType<typeof projectDocumentSchema>>;
