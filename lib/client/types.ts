/**
 * The JSON shapes of the HTTP API as the browser sees them. What the server defines is imported
 * from it, type-only (nothing of the server reaches the browser bundle); only shapes the server
 * builds inline are written here.
 */

import type { Setting, SettingSource } from "@/lib/admin-settings";
import type { PublicUser } from "@/lib/auth/accounts";
import type { ChatSettings } from "@/lib/chat-settings";
import type { MessageWithRun } from "@/lib/db/conversation-detail";
import type { SearchMatch } from "@/lib/db/conversation-search";
import type { HeldInterruptView } from "@/lib/db/interrupts";
import type { RunSummary } from "@/lib/db/runs";
import type { MessageStatus, Preset } from "@/lib/db/schema";
import type { ImportReport } from "@/lib/export/import-conversations";
import type { UploadResult } from "@/lib/files/uploads";
import type { ModelRole } from "@/lib/llm/model-roles";
import type { ModelInfo as InstalledModel } from "@/lib/llm/ollama-api";
import type { McpServersView, McpServerView } from "@/lib/mcp/admin";
import type { ToolGroup } from "@/lib/mcp/server-hub";
import type { McpTransportPatch } from "@/lib/mcp/store";
import type { McpServerState, McpToolInfo } from "@/lib/mcp/types";
import type { Artifact, Compaction, InterruptAccepted, StoredStep, Usage } from "@/lib/protocol/run-events";

export type {
  Artifact,
  ChatSettings,
  Compaction,
  InterruptAccepted,
  McpServerState,
  McpServersView,
  McpServerView,
  McpToolInfo,
  McpTransportPatch,
  MessageStatus,
  ModelRole,
  Preset,
  PublicUser,
  RunSummary,
  SearchMatch,
  Setting,
  SettingSource,
  StoredStep,
  ToolGroup,
  Usage,
};

export interface ConversationSummary {
  id: string;
  title: string;
  model: string | null;
  /** "Plan first": the composer sends this conversation's turns in DAG mode. */
  planFirst?: boolean;
  /** Its own instructions and model options; `{}` = the defaults. */
  settings?: ChatSettings;
  /** Tool groups switched off for this conversation: `web` and `mcp:<server>`. */
  disabledToolGroups?: string[];
  /** Listed before the others. */
  pinned?: boolean;
  /** Out of the sidebar's list until its Archived filter is on. */
  archived?: boolean;
  createdAt: number;
  updatedAt: number;
  /** In search results: where the query matched. */
  match?: SearchMatch;
}

/** A stored message; an assistant message comes with its run. */
export type StoredMessage = MessageWithRun;

export interface ConversationDetail {
  conversation: ConversationSummary;
  messages: StoredMessage[];
  files: ConversationFile[];
  activeRunId: string | null;
  /** Follow-ups the server holds: queued for the running answer, or unsent (their run is over). */
  interrupts: HeldInterrupt[];
}

export type HeldInterrupt = HeldInterruptView;

/** A file of a conversation: uploaded by the user, or fetched by the agent (`search_and_fetch`). */
export interface ConversationFile {
  id: string;
  origin: "upload" | "fetch";
  filename: string;
  mime: string;
  size: number;
  pageCount: number | null;
  sourceUrl: string | null;
  createdAt: number;
}

/** `POST /api/conversations/:id/files` → 201. `ref` is how the model names it: `attachment:<id>`. */
export type UploadedFile = UploadResult;

/** `POST /api/conversations/import`: what was imported, and what was skipped and why. */
export type { ImportReport };

/** `GET /api/models`: an installed model, with the context the app will use. */
/** `servers` (the Ollama servers that have it) only for an admin. */
export type ModelInfo = InstalledModel & { usableContext: number; servers?: string[] };

export interface ModelList {
  models: ModelInfo[];
  defaultModel: string | null;
  /** The vision role's model, when it is set, installed and can see: it answers images for a model that cannot. */
  visionModel: string | null;
}

export interface Health {
  ok: boolean;
  db: boolean;
  /** `error` (why Ollama is unreachable, and where it was looked for) is for admins only. */
  ollama: { reachable: boolean; version: string | null; error?: string };
}

/** `GET /api/auth/me`: whether accounts are on, who is signed in, and what the sign-in page offers. */
export interface Me {
  accountsRequired: boolean;
  user: PublicUser | null;
  signupOpen: boolean;
  firstUser: boolean;
  /** The first account needs the one-time setup token printed in the server log. */
  setupTokenRequired: boolean;
}

export type SearchBackend = "duckduckgo" | "searxng";

/** `GET /api/settings`: the effective values, where each comes from, and an Ollama check. */
export interface SettingsView {
  /** Where Ollama runs (one server, or several joined by ", ") and the variable that says so: admins only. */
  ollamaUrl?: string;
  ollamaUrlEnv?: "OLLAMA_BASE_URL" | "OLLAMA_BASE_URLS";
  /** `error` (why Ollama is unreachable) is for admins only. */
  ollama: { reachable: boolean; version: string | null; error?: string };
  roles: Record<ModelRole, Setting<string | null>>;
  /** How long each role's model stays loaded in Ollama (null: the default). */
  keepAlive: { default: Setting<string>; roles: Record<ModelRole, string | null> };
  searchBackend: Setting<SearchBackend>;
  limits: Record<string, Setting<number>>;
  editable: boolean;
}
