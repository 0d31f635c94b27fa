import type { AgentStep, Artifact } from "@/lib/agent/types";
import type { UploadResult } from "@/lib/files/uploads";
import type { ModelInfo as InstalledModel } from "@/lib/llm/ollama-api";
/** The JSON shapes of the HTTP API (SPEC §12) as the browser sees them. */

export interface ConversationSummary {
  id: string;
  title: string;
  model: string | null;
  createdAt: number;
  updatedAt: number;
}

export type MessageStatus = "complete" | "interrupted" | "error" | "stopped";

export interface Usage {
  inputTokens: number;
  outputTokens: number;
  totalTokens: number;
}

export interface RunSummary {
  id: string;
  status: "running" | MessageStatus;
  mode: string;
  model: string;
  iterations: number;
  usage: Usage;
  elapsedMs: number | null;
  error: string | null;
  /** The run's stored `step` events, in order. */
  steps: StepEvent[];
}

export interface StoredMessage {
  id: string;
  conversationId: string;
  role: "user" | "assistant";
  content: string;
  status: MessageStatus;
  /** On an assistant message: the run that wrote it. On a user message: the run it was sent into while working. */
  runId: string | null;
  /** On a user message: the conversation files sent with it. */
  attachmentIds: string[] | null;
  createdAt: number;
  run: RunSummary | null;
}

export interface ConversationDetail {
  conversation: ConversationSummary;
  messages: StoredMessage[];
  files: ConversationFile[];
  activeRunId: string | null;
}

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

/** `POST /api/conversations/:id/interrupt` → 202. */
export interface InterruptAccepted {
  queued: true;
  runId: string;
  pending: number;
}

/** `GET /api/models`: an installed model, with the context the app will use. */
export type ModelInfo = InstalledModel & { usableContext: number };

export interface ModelList {
  models: ModelInfo[];
  defaultModel: string | null;
}

export interface Health {
  ok: boolean;
  db: boolean;
  /** `error` (why Ollama is unreachable, and where it was looked for) is for admins only. */
  ollama: { reachable: boolean; version: string | null; error?: string };
}

/** Data of the SSE events the chat UI reads (SPEC §12). */
export interface RunEvent {
  runId: string;
  conversationId: string;
  userMessageId: string;
  model: string;
  mode: string;
}

/** A file the agent made (HTML or Markdown), shown as a preview instead of sent to the model. */
export type { Artifact };

/** A step of the agent loop (SPEC §12); `seq` is its place among the run's stored events, `at` its time. */
export type StepEvent = AgentStep & { seq: number; at?: number };

export interface CompactEvent {
  originalMessages: number;
  keptMessages: number;
  tokensBefore: number;
  tokensAfter: number;
}

export type AnswerEvent = { status: "start" } | { status: "delta"; content: string } | { status: "done" };

export interface ErrorEvent {
  code: string;
  message: string;
  retryable: boolean;
}

export interface DoneEvent {
  messageId: string;
  iterations: number;
  usage: Usage;
  elapsedMs: number;
  stopped?: boolean;
  /** Synthesis failed; the answer is the tool loop's own. */
  fallback?: boolean;
  /** Messages sent while working that the run never took: the client sends them as the next turn. */
  pendingInterrupts?: string[];
  /** On a conversation's first turn: the title the model gave it. */
  title?: string;
}

/** An account as the API shows it (never its password hash). */
export interface PublicUser {
  id: string;
  username: string;
  role: "admin" | "user";
  disabled: boolean;
  createdAt: number;
}

/** `GET /api/auth/me`: whether accounts are on, who is signed in, and what the sign-in page offers. */
export interface Me {
  accountsRequired: boolean;
  user: PublicUser | null;
  signupOpen: boolean;
  firstUser: boolean;
}

export type SettingSource = "env" | "settings" | "default";
export interface Setting<T> {
  value: T;
  source: SettingSource;
}

export const MODEL_ROLES = ["general", "fast", "reasoning", "vision"] as const;
export type ModelRole = (typeof MODEL_ROLES)[number];
export type SearchBackend = "duckduckgo" | "searxng";

/** `GET /api/settings`: the effective values, where each comes from, and an Ollama check. */
export interface SettingsView {
  /** Where Ollama runs: admins only. */
  ollamaUrl?: string;
  /** `error` (why Ollama is unreachable) is for admins only. */
  ollama: { reachable: boolean; version: string | null; error?: string };
  roles: Record<ModelRole, Setting<string | null>>;
  searchBackend: Setting<SearchBackend>;
  limits: Record<string, Setting<number>>;
  editable: boolean;
}

export interface SettingsPatch {
  roles?: Partial<Record<ModelRole, string | null>>;
  searchBackend?: SearchBackend;
}
