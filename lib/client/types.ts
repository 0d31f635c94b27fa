/**
 * The JSON shapes of the HTTP API as the browser sees them. What the server defines is imported
 * from it, type-only (nothing of the server reaches the browser bundle); only shapes the server
 * builds inline are written here.
 */

import type { EffectiveSettings, Setting, SettingSource } from "@/lib/admin-settings";
import type { ChatSettings } from "@/lib/chat-settings";
import type { getConversationDetail, listFileSummaries, MessageWithRun } from "@/lib/db/conversation-detail";
import type { SearchMatch } from "@/lib/db/conversation-search";
import type { ConversationListItem } from "@/lib/db/conversations";
import type { listProjectFiles } from "@/lib/db/files";
import type { HeldInterruptView } from "@/lib/db/interrupts";
import type { McpTransportPatch } from "@/lib/db/mcp-servers";
import type { RunSummary } from "@/lib/db/runs";
import type { MessageStatus, Preset, Project } from "@/lib/db/schema";
import type { PublicUser } from "@/lib/db/users";
import type { ImportReport } from "@/lib/export/import-conversations";
import type { UploadResult } from "@/lib/files/uploads";
import type { ModelRole } from "@/lib/llm/model-roles";
import type { ModelInfo as InstalledModel } from "@/lib/llm/ollama-api";
import type { OllamaStatus } from "@/lib/llm/ollama-status";
import type { McpServersView, McpServerView } from "@/lib/mcp/admin";
import type { ToolGroup } from "@/lib/mcp/server-hub";
import type { McpServerState, McpToolInfo } from "@/lib/mcp/types";
import type { Artifact, Compaction, InterruptAccepted, StoredStep, Usage } from "@/lib/protocol/run-events";
import type { TextMatch } from "@/lib/text/search-snippet";
import type { LibraryHit } from "@/lib/tools/services";

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
  Project,
  PublicUser,
  RunSummary,
  SearchMatch,
  Setting,
  SettingSource,
  StoredStep,
  ToolGroup,
  Usage,
};

/**
 * A conversation as the API lists and returns it: its stored row (`planFirst`: the composer sends
 * its turns in DAG mode; `settings`: its own instructions and options; `disabledToolGroups`: `web`
 * and `mcp:<server>` switched off); in search results with `match`, where the query matched.
 */
export type ConversationSummary = ConversationListItem;

/** A stored message; an assistant message comes with its run. */
export type StoredMessage = MessageWithRun;

/** `GET /api/conversations/:id`: the branch shown, its files, the running run, and the follow-ups the server holds. */
export type ConversationDetail = Awaited<ReturnType<typeof getConversationDetail>> & { interrupts: HeldInterrupt[] };

export type HeldInterrupt = HeldInterruptView;

/** A file of a conversation: uploaded by the user, or fetched by the agent (`search_and_fetch`). */
export type ConversationFile = Awaited<ReturnType<typeof listFileSummaries>>[number];

/** A project's file, as `GET /api/projects/:id/files` lists it (`indexed`: in the library index yet). */
export type ProjectFile = Awaited<ReturnType<typeof listProjectFiles>>[number];

/** `GET /api/files/search`: passages of the user's files holding the words, best first. */
export interface FileSearchResult {
  hits: (Omit<LibraryHit, "score"> & {
    match: { start: number; length: number } | null;
    snippet: TextMatch | null;
  })[];
  terms: string[];
  /** More passages match than a search ranks: these are the best of the newest. */
  limited: boolean;
}

/** `POST /api/conversations/:id/files` → 201. `ref` is how the model names it: `attachment:<id>`. */
export type UploadedFile = UploadResult;

/** `POST /api/conversations/import`: what was imported, and what was skipped and why. */
export type { ImportReport };

/**
 * `GET /api/models`: an installed model, with the context the app will use. `servers` (the Ollama
 * servers that have it) only for an admin; `openaiCompatible` on a model of an OpenAI-compatible
 * server (named `<model>@<label>`): its server's label and the server's own name for it.
 */
export type ModelInfo = InstalledModel & {
  usableContext: number;
  servers?: string[];
  openaiCompatible?: { label: string; model: string };
};

export interface ModelList {
  models: ModelInfo[];
  /** Each OpenAI-compatible server's state: a model of one that is not up is not in `models`. */
  servers?: { label: string; state: "up" | "down" | "key_refused" }[];
  defaultModel: string | null;
  /** The vision role's model, when it is set, installed and can see: it answers images for a model that cannot. */
  visionModel: string | null;
}

export interface Health {
  ok: boolean;
  db: boolean;
  /** `error` (why Ollama is unreachable, and where it was looked for) is for admins only. */
  ollama: OllamaStatus;
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

export type SearchBackend = EffectiveSettings["searchBackend"]["value"];

/**
 * `GET /api/settings`: the effective values and where each comes from, an Ollama check, and whether
 * this viewer may change them. Where Ollama runs (`ollamaUrl`, and the variable that says so) and
 * why it is unreachable (`ollama.error`) are for admins only.
 */
export type SettingsView = Omit<EffectiveSettings, "ollamaUrl" | "ollamaUrlEnv"> &
  Partial<Pick<EffectiveSettings, "ollamaUrl" | "ollamaUrlEnv">> & { ollama: OllamaStatus; editable: boolean };
