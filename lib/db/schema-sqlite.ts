import { sql } from "drizzle-orm";
import {
  type AnySQLiteColumn,
  blob,
  check,
  foreignKey,
  index,
  integer,
  primaryKey,
  sqliteTable,
  text,
  uniqueIndex,
} from "drizzle-orm/sqlite-core";
import type { ChatSettings } from "../chat-settings";
import type { McpToolApproval, McpTransportConfig } from "../mcp/types";
import type { CitationReport } from "../protocol/citations";
import type { RunEventData, RunEventName } from "../protocol/run-events";

/** The SQLite store's tables (docs/architecture.md, "Persistence"); the app reads them through lib/db/schema.ts. Times are Unix milliseconds. */

export const userRoles = ["admin", "user"] as const;

/** Accounts, required when the app is reachable beyond loopback. */
export const users = sqliteTable("users", {
  id: text("id").primaryKey(),
  username: text("username").notNull().unique(),
  passwordHash: text("password_hash").notNull(),
  role: text("role", { enum: userRoles }).notNull(),
  disabled: integer("disabled", { mode: "boolean" }).notNull().default(false),
  createdAt: integer("created_at").notNull(),
  /** Set when the account's removal began: a start on any instance is refused from then on (lib/chat/account-removal.ts). */
  removingAt: integer("removing_at"),
});

/** Login sessions; the cookie holds a random token, the table only its SHA-256. */
export const sessions = sqliteTable(
  "sessions",
  {
    id: text("id").primaryKey(),
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    createdAt: integer("created_at").notNull(),
    expiresAt: integer("expires_at").notNull(),
  },
  (table) => [index("sessions_user_idx").on(table.userId)],
);

/** Settings changed from the UI (sign-up open, default model, model roles). */
export const settings = sqliteTable("settings", {
  key: text("key").primaryKey(),
  value: text("value", { mode: "json" }).notNull(),
});

/**
 * A project (docs/architecture.md, "Projects and memory"): a folder of conversations with its own
 * instructions, default model or preset, and files every conversation in it can read.
 */
export const projects = sqliteTable(
  "projects",
  {
    id: text("id").primaryKey(),
    /** The owner; null in single-user mode (claimed by the first admin, like conversations). */
    userId: text("user_id").references(() => users.id, { onDelete: "cascade" }),
    name: text("name").notNull(),
    /** Given to the model in every conversation of the project, before the chat's own. */
    instructions: text("instructions").notNull().default(""),
    /** The model a new chat in the project starts with; null = the usual choice. */
    model: text("model"),
    /** The preset a new chat in the project starts with; null = none. */
    presetId: text("preset_id").references(() => presets.id, { onDelete: "set null" }),
    /** Folded in the sidebar. */
    collapsed: integer("collapsed", { mode: "boolean" }).notNull().default(false),
    createdAt: integer("created_at").notNull(),
    updatedAt: integer("updated_at").notNull(),
  },
  (table) => [index("projects_user_idx").on(table.userId)],
);

export const conversations = sqliteTable(
  "conversations",
  {
    id: text("id").primaryKey(),
    /** The owner; null in single-user mode (claimed by the first admin when accounts are enabled). */
    userId: text("user_id").references(() => users.id, { onDelete: "cascade" }),
    title: text("title").notNull(),
    model: text("model"),
    /** The latest compaction summary of earlier turns, standing in for them in later turns. */
    summary: text("summary"),
    /** The last message the summary covers; later turns start after it. */
    summaryThrough: text("summary_through"),
    /** "Plan first": the composer sends this conversation's turns in DAG mode. */
    planFirst: integer("plan_first", { mode: "boolean" }).notNull().default(false),
    /** Tool groups switched off for this conversation: `web` (the built-in tools) and `mcp:<server>`. */
    disabledToolGroups: text("disabled_tool_groups", { mode: "json" }).$type<string[]>().notNull().default([]),
    /** The last message of the branch shown (docs/architecture.md, "Persistence"); null before the first message. */
    activeLeafId: text("active_leaf_id"),
    /** Its own instructions and model options (lib/chat-settings.ts); `{}` = the model's defaults. */
    settings: text("settings", { mode: "json" }).$type<ChatSettings>().notNull().default({}),
    /** Listed before the others (docs/api.md, "Conversations"). */
    pinned: integer("pinned", { mode: "boolean" }).notNull().default(false),
    /** Out of the list until the archive filter asks for it; still opens by its URL. */
    archived: integer("archived", { mode: "boolean" }).notNull().default(false),
    /** The project it belongs to; null = none. Deleting a project without its conversations moves them out. */
    projectId: text("project_id").references((): AnySQLiteColumn => projects.id, { onDelete: "set null" }),
    /** A private chat reads and writes no memory (docs/architecture.md, "Projects and memory"). */
    private: integer("private", { mode: "boolean" }).notNull().default(false),
    createdAt: integer("created_at").notNull(),
    updatedAt: integer("updated_at").notNull(),
  },
  (table) => [
    index("conversations_updated_idx").on(table.updatedAt, table.id),
    index("conversations_user_idx").on(table.userId),
    index("conversations_project_idx").on(table.projectId),
  ],
);

/**
 * A user's saved model + instructions + options, chosen when starting a chat. The one marked
 * `isDefault` (at most one per user) is the personal default applied to new chats.
 */
export const presets = sqliteTable(
  "presets",
  {
    id: text("id").primaryKey(),
    /** The owner; null in single-user mode (claimed by the first admin, like conversations). */
    userId: text("user_id").references(() => users.id, { onDelete: "cascade" }),
    name: text("name").notNull(),
    /** The model a chat started with it uses; null = the usual choice. */
    model: text("model"),
    settings: text("settings", { mode: "json" }).$type<ChatSettings>().notNull(),
    isDefault: integer("is_default", { mode: "boolean" }).notNull().default(false),
    createdAt: integer("created_at").notNull(),
  },
  (table) => [index("presets_user_idx").on(table.userId)],
);

export const messageRoles = ["user", "assistant"] as const;
export const messageStatuses = ["complete", "interrupted", "error", "stopped"] as const;

export const messages = sqliteTable(
  "messages",
  {
    id: text("id").primaryKey(),
    conversationId: text("conversation_id")
      .notNull()
      .references(() => conversations.id, { onDelete: "cascade" }),
    /**
     * The message this one follows on its branch; null for a first question. A question follows an
     * answer, an answer and the interrupts of its run follow the run's question. Versions of a
     * message (an edited question, a regenerated answer) share its parent.
     */
    parentId: text("parent_id").references((): AnySQLiteColumn => messages.id, { onDelete: "cascade" }),
    role: text("role", { enum: messageRoles }).notNull(),
    content: text("content").notNull(),
    status: text("status", { enum: messageStatuses }).notNull().default("complete"),
    runId: text("run_id"),
    /** Files sent with this user message (ids of the conversation's files). */
    attachmentIds: text("attachment_ids", { mode: "json" }).$type<string[]>(),
    createdAt: integer("created_at").notNull(),
  },
  (table) => [index("messages_conversation_idx").on(table.conversationId, table.createdAt)],
);

export const runStatuses = ["running", "complete", "stopped", "error", "interrupted"] as const;
export const runModes = ["native", "json", "dag", "plain", "research"] as const;

export const runs = sqliteTable(
  "runs",
  {
    id: text("id").primaryKey(),
    conversationId: text("conversation_id")
      .notNull()
      .references(() => conversations.id, { onDelete: "cascade" }),
    status: text("status", { enum: runStatuses }).notNull(),
    mode: text("mode", { enum: runModes }).notNull(),
    model: text("model").notNull(),
    /** The user message this run answers: its answer becomes that message's child. */
    questionId: text("question_id"),
    iterations: integer("iterations").notNull().default(0),
    inputTokens: integer("input_tokens").notNull().default(0),
    outputTokens: integer("output_tokens").notNull().default(0),
    /** How long the model took to write the output tokens (Ollama's eval_duration); null when it did not say. */
    generationMs: integer("generation_ms"),
    elapsedMs: integer("elapsed_ms"),
    error: text("error"),
    /** Synthesis failed before any of it streamed: the stored answer is the tool loop's draft, `error` says why. */
    fallback: integer("fallback", { mode: "boolean" }).notNull().default(false),
    /** The answer streamed so far, saved now and then so a crash keeps what the user saw. */
    partialAnswer: text("partial_answer"),
    startedAt: integer("started_at").notNull(),
    finishedAt: integer("finished_at"),
    /** The app instance whose memory holds the running run (`instances`); null with a single instance. */
    instanceId: text("instance_id"),
  },
  (table) => [
    index("runs_conversation_idx").on(table.conversationId),
    index("runs_status_idx").on(table.status),
    // One running run per conversation, held by the database, so it holds across app instances too.
    uniqueIndex("runs_running_conversation_idx").on(table.conversationId).where(sql`status = 'running'`),
  ],
);

/**
 * App instances sharing one PostgreSQL (docs/cluster.md, "Several app instances"): each
 * stamps `seenAt` on every heartbeat; a survivor interrupts the running runs of one unseen for
 * three heartbeats. Unused with SQLite (one instance).
 */
export const instances = sqliteTable("instances", {
  id: text("id").primaryKey(),
  startedAt: integer("started_at").notNull(),
  seenAt: integer("seen_at").notNull(),
});

export const runEvents = sqliteTable(
  "run_events",
  {
    runId: text("run_id")
      .notNull()
      .references(() => runs.id, { onDelete: "cascade" }),
    seq: integer("seq").notNull(),
    type: text("type").$type<RunEventName>().notNull(),
    data: text("data", { mode: "json" }).$type<RunEventData<RunEventName>>().notNull(),
    createdAt: integer("created_at").notNull(),
  },
  (table) => [primaryKey({ columns: [table.runId, table.seq] })],
);

/**
 * The sources of a run (docs/research.md, "The source store"): every page and file its tools read,
 * under the number the answer's `[n]` names. `contentHash` (SHA-256 hex) and `chars` are of the
 * source's text: its parts' texts joined by a blank line.
 */
export const runSources = sqliteTable(
  "run_sources",
  {
    runId: text("run_id")
      .notNull()
      .references(() => runs.id, { onDelete: "cascade" }),
    n: integer("n").notNull(),
    url: text("url").notNull(),
    title: text("title").notNull(),
    retrievedAt: integer("retrieved_at").notNull(),
    contentHash: text("content_hash").notNull(),
    chars: integer("chars").notNull(),
  },
  (table) => [primaryKey({ columns: [table.runId, table.n] })],
);

/** The text of each part of a source the run's tools read, in the order read (`seq` from 0), with its PDF pages. */
export const runSourceParts = sqliteTable(
  "run_source_parts",
  {
    runId: text("run_id").notNull(),
    n: integer("n").notNull(),
    seq: integer("seq").notNull(),
    text: text("text").notNull(),
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

/** What checking an assistant message's citations found, as last checked (docs/research.md, "Checking citations"). */
export const citationReports = sqliteTable("citation_reports", {
  messageId: text("message_id")
    .primaryKey()
    .references(() => messages.id, { onDelete: "cascade" }),
  report: text("report", { mode: "json" }).$type<CitationReport>().notNull(),
  checkedAt: integer("checked_at").notNull(),
});

/**
 * Interrupts (follow-ups sent while a run works) not yet part of the conversation: stored when
 * accepted, so the server, not the browser, holds them. Queued while their run is running; taken
 * by the run, they become user messages under the same id; after their run they are the next turn
 * or, when the run was stopped or failed, unsent messages the user sends or discards.
 */
export const interrupts = sqliteTable(
  "interrupts",
  {
    id: text("id").primaryKey(),
    conversationId: text("conversation_id")
      .notNull()
      .references(() => conversations.id, { onDelete: "cascade" }),
    /** The run it was sent to (a run still starting has no row yet, so no foreign key). */
    runId: text("run_id").notNull(),
    text: text("text").notNull(),
    createdAt: integer("created_at").notNull(),
  },
  (table) => [index("interrupts_conversation_idx").on(table.conversationId, table.createdAt)],
);

/**
 * MCP servers an admin configured on the settings page (those of the `MCP_CONFIG` file are read
 * from it, never stored). `transport` holds the command or URL with its env and header values.
 */
export const mcpServers = sqliteTable("mcp_servers", {
  name: text("name").primaryKey(),
  enabled: integer("enabled", { mode: "boolean" }).notNull().default(true),
  transport: text("transport", { mode: "json" }).$type<McpTransportConfig>().notNull(),
  /** Tools an admin switched off, by their name on the server. */
  disabledTools: text("disabled_tools", { mode: "json" }).$type<string[]>().notNull().default([]),
  /** Which tools run at once, ask the user or are refused (`toolApprovalPolicy` in lib/mcp/types.ts). */
  toolApproval: text("tool_approval", { mode: "json" })
    .$type<McpToolApproval>()
    .notNull()
    .default({ default: null, tools: {} }),
  createdAt: integer("created_at").notNull(),
  updatedAt: integer("updated_at").notNull(),
});

/**
 * "Always for this tool in this chat": an MCP tool (by its qualified name, `server__tool`) that
 * the user let run without asking in this conversation, who did and when (docs/security.md, "Tools that act
 * need the user's consent").
 */
export const toolApprovals = sqliteTable(
  "tool_approvals",
  {
    conversationId: text("conversation_id")
      .notNull()
      .references(() => conversations.id, { onDelete: "cascade" }),
    tool: text("tool").notNull(),
    /** The account that approved (null in single-user mode). */
    approvedBy: text("approved_by"),
    createdAt: integer("created_at").notNull(),
  },
  (table) => [primaryKey({ columns: [table.conversationId, table.tool] })],
);

export const fileOrigins = ["upload", "fetch"] as const;

/**
 * Stored files: a conversation's (uploads, pages `search_and_fetch` kept) or a project's, which
 * every conversation of the project reads. Exactly one of `conversationId` and `projectId` is set.
 */
export const files = sqliteTable(
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
    bytes: blob("bytes", { mode: "buffer" }).notNull(),
    /** When its text went into the library index (`file_chunks`); null = not yet (indexed at start). */
    indexedAt: integer("indexed_at"),
    /**
     * The app instance whose start step is indexing the file; another instance's start step leaves it
     * alone while that one is registered (docs/architecture.md, "The library index"). Null once indexed.
     */
    indexClaimedBy: text("index_claimed_by"),
    createdAt: integer("created_at").notNull(),
  },
  (table) => [
    index("files_conversation_idx").on(table.conversationId),
    index("files_project_idx").on(table.projectId),
    check("files_one_owner", sql`(${table.conversationId} is null) <> (${table.projectId} is null)`),
  ],
);

/**
 * The library index (docs/architecture.md, "The library index"): each stored file's text in
 * passages, in order (`seq` from 0), with where each starts in the file's text and, for a PDF, its
 * pages. The full-text index over `grams` is made by the migration, not here: SQLite's FTS5 table
 * `file_chunks_grams` (kept by triggers), PostgreSQL's GIN index over its tokens.
 */
export const fileChunks = sqliteTable(
  "file_chunks",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    fileId: text("file_id")
      .notNull()
      .references(() => files.id, { onDelete: "cascade" }),
    seq: integer("seq").notNull(),
    text: text("text").notNull(),
    /** `text` NFKC-normalised and lowercased: what the full-text index and the queries read. */
    folded: text("folded").notNull(),
    /** The index's tokens of `folded` (`lib/library/grams.ts`): "" for a passage indexed before them. */
    grams: text("grams").notNull().default(""),
    /** Where the passage starts in the file's whole text, in UTF-16 code units. */
    start: integer("start").notNull(),
    pageFirst: integer("page_first"),
    pageLast: integer("page_last"),
  },
  (table) => [
    uniqueIndex("file_chunks_file_idx").on(table.fileId, table.seq),
    // A search joins each passage the full-text index finds to its file through this index, never
    // through the passage's row with its text (docs/architecture.md, "The library index").
    index("file_chunks_file_of").on(table.id, table.fileId),
  ],
);

/**
 * What the user asked the agent to remember (docs/architecture.md, "Projects and memory"): one lasting
 * preference or fact each, the owner's only.
 */
export const memories = sqliteTable(
  "memories",
  {
    id: text("id").primaryKey(),
    /** The owner; null in single-user mode (claimed by the first admin, like conversations). */
    userId: text("user_id").references(() => users.id, { onDelete: "cascade" }),
    text: text("text").notNull(),
    /** The conversation and answer that proposed it; null when the user wrote it, or they were deleted. */
    conversationId: text("conversation_id").references(() => conversations.id, { onDelete: "set null" }),
    messageId: text("message_id").references(() => messages.id, { onDelete: "set null" }),
    /** The run whose `remember` proposed it: it names the run's answer once that is stored (`nameRunAnswer`). */
    runId: text("run_id").references(() => runs.id, { onDelete: "set null" }),
    createdAt: integer("created_at").notNull(),
    updatedAt: integer("updated_at").notNull(),
  },
  (table) => [index("memories_user_idx").on(table.userId), index("memories_run_idx").on(table.runId)],
);

/**
 * A proposal of `remember` the owner dismissed (docs/architecture.md, "Projects and memory"): the
 * run that proposed it and its text, so its answer shows it dismissed after a reload. Goes with the
 * run (its conversation) or the account.
 */
export const memoryDismissals = sqliteTable(
  "memory_dismissals",
  {
    id: text("id").primaryKey(),
    /** The owner; null in single-user mode (claimed by the first admin, like memories). */
    userId: text("user_id").references(() => users.id, { onDelete: "cascade" }),
    runId: text("run_id")
      .notNull()
      .references(() => runs.id, { onDelete: "cascade" }),
    text: text("text").notNull(),
    createdAt: integer("created_at").notNull(),
  },
  (table) => [index("memory_dismissals_run_idx").on(table.runId)],
);

export type Project = typeof projects.$inferSelect;
export type Conversation = typeof conversations.$inferSelect;
export type Preset = typeof presets.$inferSelect;
export type Message = typeof messages.$inferSelect;
export type Run = typeof runs.$inferSelect;
export type StoredRunEvent = typeof runEvents.$inferSelect;
export type RunSourceRow = typeof runSources.$inferSelect;
export type RunSourcePartRow = typeof runSourceParts.$inferSelect;
export type StoredFile = typeof files.$inferSelect;
export type FileChunk = typeof fileChunks.$inferSelect;
export type Memory = typeof memories.$inferSelect;
export type HeldInterrupt = typeof interrupts.$inferSelect;
export type MessageStatus = (typeof messageStatuses)[number];
export type RunStatus = (typeof runStatuses)[number];
export type RunMode = (typeof runModes)[number];
export type User = typeof users.$inferSelect;
export type StoredMcpServer = typeof mcpServers.$inferSelect;
export type UserRole = (typeof userRoles)[number];
