import { sql } from "drizzle-orm";
import {
  type AnyPgColumn,
  bigint,
  boolean,
  check,
  customType,
  foreignKey,
  index,
  integer,
  pgTable,
  primaryKey,
  text,
  uniqueIndex,
} from "drizzle-orm/pg-core";
import type { ChatSettings } from "../chat-settings";
import type { McpToolApproval, McpTransportConfig } from "../mcp/types";
import type { CitationReport } from "../protocol/citations";
import type { RunEventData, RunEventName } from "../protocol/run-events";
import { fileOrigins, messageRoles, messageStatuses, runModes, runStatuses, userRoles } from "./schema-sqlite";

/**
 * The PostgreSQL twin of `lib/db/schema.ts` (docs/architecture.md, "Persistence"): the same tables,
 * columns and row types, so the store's queries, typed from the SQLite schema, run on either.
 * `lib/db/schema-parity.test.ts` holds them equal. What differs is only how PostgreSQL spells them:
 * times (Unix ms) are `bigint`, flags `boolean`, JSON `jsonb`, bytes `bytea`.
 *
 * SQLite numbers every row in insertion order (its implicit `rowid`), which the store reads to order
 * rows stored in the same millisecond (`insertionOrder` in lib/db/portable-sql.ts). On PostgreSQL the
 * tables read that way (`messages`, `interrupts`, `files`) get a `rowid bigserial` column from the
 * migration `drizzle-pg/0001_insertion_order.sql`. Like SQLite's, it stays out of the tables below,
 * so a row reads the same from either store.
 */

/** A millisecond time or duration: past int4's range, read back as a JS number (exact up to 2^53). */
const ms = (name: string) => bigint(name, { mode: "number" });

/**
 * PostgreSQL's text and jsonb cannot hold U+0000, which SQLite stores: text a user sent, a page or
 * a PDF gave, or a model wrote is written without it (it shows as nothing anyway), instead of
 * failing the request or the run. The type in the database is plain `text` / `jsonb`.
 */
const freeText = customType<{ data: string; driverData: string }>({
  dataType: () => "text",
  toDriver: (value) => withoutNul(value),
});

const json = customType<{ data: unknown; driverData: string }>({
  dataType: () => "jsonb",
  toDriver: (value) =>
    JSON.stringify(value, (_key, item: unknown) => (typeof item === "string" ? withoutNul(item) : item)),
});

function withoutNul(value: string): string {
  return value.includes("\u0000") ? value.replaceAll("\u0000", "") : value;
}

const bytea = customType<{ data: Buffer; driverData: Buffer }>({
  dataType: () => "bytea",
});

export const users = pgTable("users", {
  id: text("id").primaryKey(),
  username: text("username").notNull().unique(),
  passwordHash: text("password_hash").notNull(),
  role: text("role", { enum: userRoles }).notNull(),
  disabled: boolean("disabled").notNull().default(false),
  createdAt: ms("created_at").notNull(),
  /** Set when the account's removal began: a start on any instance is refused from then on (lib/chat/account-removal.ts). */
  removingAt: ms("removing_at"),
});

export const sessions = pgTable(
  "sessions",
  {
    id: text("id").primaryKey(),
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    createdAt: ms("created_at").notNull(),
    expiresAt: ms("expires_at").notNull(),
  },
  (table) => [index("sessions_user_idx").on(table.userId)],
);

export const settings = pgTable("settings", {
  key: text("key").primaryKey(),
  value: json("value").notNull(),
});

export const projects = pgTable(
  "projects",
  {
    id: text("id").primaryKey(),
    userId: text("user_id").references(() => users.id, { onDelete: "cascade" }),
    name: freeText("name").notNull(),
    instructions: freeText("instructions").notNull().default(""),
    model: text("model"),
    presetId: text("preset_id").references((): AnyPgColumn => presets.id, { onDelete: "set null" }),
    collapsed: boolean("collapsed").notNull().default(false),
    createdAt: ms("created_at").notNull(),
    updatedAt: ms("updated_at").notNull(),
  },
  (table) => [index("projects_user_idx").on(table.userId)],
);

export const conversations = pgTable(
  "conversations",
  {
    id: text("id").primaryKey(),
    userId: text("user_id").references(() => users.id, { onDelete: "cascade" }),
    title: freeText("title").notNull(),
    model: text("model"),
    summary: freeText("summary"),
    summaryThrough: text("summary_through"),
    planFirst: boolean("plan_first").notNull().default(false),
    disabledToolGroups: json("disabled_tool_groups").$type<string[]>().notNull().default([]),
    activeLeafId: text("active_leaf_id"),
    settings: json("settings").$type<ChatSettings>().notNull().default({}),
    pinned: boolean("pinned").notNull().default(false),
    archived: boolean("archived").notNull().default(false),
    projectId: text("project_id").references((): AnyPgColumn => projects.id, { onDelete: "set null" }),
    private: boolean("private").notNull().default(false),
    createdAt: ms("created_at").notNull(),
    updatedAt: ms("updated_at").notNull(),
  },
  (table) => [
    index("conversations_updated_idx").on(table.updatedAt, table.id),
    index("conversations_user_idx").on(table.userId),
    index("conversations_project_idx").on(table.projectId),
  ],
);

export const presets = pgTable(
  "presets",
  {
    id: text("id").primaryKey(),
    userId: text("user_id").references(() => users.id, { onDelete: "cascade" }),
    name: freeText("name").notNull(),
    model: text("model"),
    settings: json("settings").$type<ChatSettings>().notNull(),
    isDefault: boolean("is_default").notNull().default(false),
    createdAt: ms("created_at").notNull(),
  },
  (table) => [index("presets_user_idx").on(table.userId)],
);

export const messages = pgTable(
  "messages",
  {
    id: text("id").primaryKey(),
    conversationId: text("conversation_id")
      .notNull()
      .references(() => conversations.id, { onDelete: "cascade" }),
    parentId: text("parent_id").references((): AnyPgColumn => messages.id, { onDelete: "cascade" }),
    role: text("role", { enum: messageRoles }).notNull(),
    content: freeText("content").notNull(),
    status: text("status", { enum: messageStatuses }).notNull().default("complete"),
    runId: text("run_id"),
    attachmentIds: json("attachment_ids").$type<string[]>(),
    createdAt: ms("created_at").notNull(),
  },
  (table) => [index("messages_conversation_idx").on(table.conversationId, table.createdAt)],
);

export const runs = pgTable(
  "runs",
  {
    id: text("id").primaryKey(),
    conversationId: text("conversation_id")
      .notNull()
      .references(() => conversations.id, { onDelete: "cascade" }),
    status: text("status", { enum: runStatuses }).notNull(),
    mode: text("mode", { enum: runModes }).notNull(),
    model: text("model").notNull(),
    questionId: text("question_id"),
    iterations: integer("iterations").notNull().default(0),
    inputTokens: integer("input_tokens").notNull().default(0),
    outputTokens: integer("output_tokens").notNull().default(0),
    generationMs: ms("generation_ms"),
    elapsedMs: ms("elapsed_ms"),
    error: freeText("error"),
    fallback: boolean("fallback").notNull().default(false),
    partialAnswer: freeText("partial_answer"),
    startedAt: ms("started_at").notNull(),
    finishedAt: ms("finished_at"),
    instanceId: text("instance_id"),
  },
  (table) => [
    index("runs_conversation_idx").on(table.conversationId),
    index("runs_status_idx").on(table.status),
    uniqueIndex("runs_running_conversation_idx").on(table.conversationId).where(sql`status = 'running'`),
  ],
);

export const instances = pgTable("instances", {
  id: text("id").primaryKey(),
  startedAt: ms("started_at").notNull(),
  seenAt: ms("seen_at").notNull(),
});

export const runEvents = pgTable(
  "run_events",
  {
    runId: text("run_id")
      .notNull()
      .references(() => runs.id, { onDelete: "cascade" }),
    seq: integer("seq").notNull(),
    type: text("type").$type<RunEventName>().notNull(),
    data: json("data").$type<RunEventData<RunEventName>>().notNull(),
    createdAt: ms("created_at").notNull(),
  },
  (table) => [primaryKey({ columns: [table.runId, table.seq] })],
);

export const runSources = pgTable(
  "run_sources",
  {
    runId: text("run_id")
      .notNull()
      .references(() => runs.id, { onDelete: "cascade" }),
    n: integer("n").notNull(),
    url: freeText("url").notNull(),
    title: freeText("title").notNull(),
    retrievedAt: ms("retrieved_at").notNull(),
    contentHash: text("content_hash").notNull(),
    chars: integer("chars").notNull(),
  },
  (table) => [primaryKey({ columns: [table.runId, table.n] })],
);

export const runSourceParts = pgTable(
  "run_source_parts",
  {
    runId: text("run_id").notNull(),
    n: integer("n").notNull(),
    seq: integer("seq").notNull(),
    text: freeText("text").notNull(),
    pageFirst: integer("page_first"),
    pageLast: integer("page_last"),
    pageTotal: integer("page_total"),
  },
  (table) => [
    primaryKey({ columns: [table.runId, table.n, table.seq] }),
    foreignKey({ columns: [table.runId, table.n], foreignColumns: [runSources.runId, runSources.n] }).onDelete(
      "cascade",
    ),
  ],
);

export const citationReports = pgTable("citation_reports", {
  messageId: text("message_id")
    .primaryKey()
    .references(() => messages.id, { onDelete: "cascade" }),
  report: json("report").$type<CitationReport>().notNull(),
  checkedAt: ms("checked_at").notNull(),
});

export const interrupts = pgTable(
  "interrupts",
  {
    id: text("id").primaryKey(),
    conversationId: text("conversation_id")
      .notNull()
      .references(() => conversations.id, { onDelete: "cascade" }),
    runId: text("run_id").notNull(),
    text: freeText("text").notNull(),
    createdAt: ms("created_at").notNull(),
  },
  (table) => [index("interrupts_conversation_idx").on(table.conversationId, table.createdAt)],
);

export const mcpServers = pgTable("mcp_servers", {
  name: text("name").primaryKey(),
  enabled: boolean("enabled").notNull().default(true),
  transport: json("transport").$type<McpTransportConfig>().notNull(),
  disabledTools: json("disabled_tools").$type<string[]>().notNull().default([]),
  toolApproval: json("tool_approval").$type<McpToolApproval>().notNull().default({ default: null, tools: {} }),
  createdAt: ms("created_at").notNull(),
  updatedAt: ms("updated_at").notNull(),
});

export const toolApprovals = pgTable(
  "tool_approvals",
  {
    conversationId: text("conversation_id")
      .notNull()
      .references(() => conversations.id, { onDelete: "cascade" }),
    tool: text("tool").notNull(),
    approvedBy: text("approved_by"),
    createdAt: ms("created_at").notNull(),
  },
  (table) => [primaryKey({ columns: [table.conversationId, table.tool] })],
);

export const files = pgTable(
  "files",
  {
    id: text("id").primaryKey(),
    conversationId: text("conversation_id").references(() => conversations.id, { onDelete: "cascade" }),
    projectId: text("project_id").references(() => projects.id, { onDelete: "cascade" }),
    origin: text("origin", { enum: fileOrigins }).notNull(),
    filename: text("filename").notNull(),
    mime: text("mime").notNull(),
    size: integer("size").notNull(),
    sha256: text("sha256").notNull(),
    pageCount: integer("page_count"),
    sourceUrl: text("source_url"),
    bytes: bytea("bytes").notNull(),
    indexedAt: ms("indexed_at"),
    /**
     * The app instance whose start step is indexing the file; another instance's start step leaves it
     * alone while that one is registered (docs/architecture.md, "The library index"). Null once indexed.
     */
    indexClaimedBy: text("index_claimed_by"),
    createdAt: ms("created_at").notNull(),
  },
  (table) => [
    index("files_conversation_idx").on(table.conversationId),
    index("files_project_idx").on(table.projectId),
    check("files_one_owner", sql`(${table.conversationId} is null) <> (${table.projectId} is null)`),
  ],
);

/** The library index's passages; the trigram GIN index over `folded` is made by the migration. */
export const fileChunks = pgTable(
  "file_chunks",
  {
    id: integer("id").primaryKey().generatedByDefaultAsIdentity(),
    fileId: text("file_id")
      .notNull()
      .references(() => files.id, { onDelete: "cascade" }),
    seq: integer("seq").notNull(),
    text: freeText("text").notNull(),
    /** `text` NFKC-normalised and lowercased: what the full-text index and the queries read. */
    folded: freeText("folded").notNull(),
    /** The index's tokens of `folded` (`lib/library/grams.ts`): "" for a passage indexed before them. */
    grams: freeText("grams").notNull().default(""),
    start: integer("start").notNull(),
    pageFirst: integer("page_first"),
    pageLast: integer("page_last"),
  },
  (table) => [
    uniqueIndex("file_chunks_file_idx").on(table.fileId, table.seq),
    // The same as SQLite's, whose searches join each passage to its file through it (docs/architecture.md, "The library index").
    index("file_chunks_file_of").on(table.id, table.fileId),
  ],
);

export const memories = pgTable(
  "memories",
  {
    id: text("id").primaryKey(),
    userId: text("user_id").references(() => users.id, { onDelete: "cascade" }),
    text: freeText("text").notNull(),
    conversationId: text("conversation_id").references(() => conversations.id, { onDelete: "set null" }),
    messageId: text("message_id").references(() => messages.id, { onDelete: "set null" }),
    runId: text("run_id").references(() => runs.id, { onDelete: "set null" }),
    createdAt: ms("created_at").notNull(),
    updatedAt: ms("updated_at").notNull(),
  },
  (table) => [index("memories_user_idx").on(table.userId), index("memories_run_idx").on(table.runId)],
);

export const memoryDismissals = pgTable(
  "memory_dismissals",
  {
    id: text("id").primaryKey(),
    userId: text("user_id").references(() => users.id, { onDelete: "cascade" }),
    runId: text("run_id")
      .notNull()
      .references(() => runs.id, { onDelete: "cascade" }),
    text: freeText("text").notNull(),
    createdAt: ms("created_at").notNull(),
  },
  (table) => [index("memory_dismissals_run_idx").on(table.runId)],
);
