/**
 * Typed calls to the app's HTTP API from the browser. Every failure becomes an `ApiError`. The UI
 * reads through SWR (keys in `cache-keys.ts`), which calls these as its fetchers: this module stays
 * the one place that knows the URLs, the error shape and the sign-in redirect on a 401.
 */
import type { FileUsage } from "@/lib/files/quota";
import type { ModelDetails } from "@/lib/llm/ollama-api";
import type { OllamaServerStatus, PooledLoadedModel } from "@/lib/llm/ollama-pool";
import type { McpToolApproval } from "@/lib/mcp/types";
import type { PullEvent } from "@/lib/protocol/pull-events";
import type { ApprovalDecided, ApprovalDecision } from "@/lib/protocol/run-events";
import { cacheKeys } from "./cache-keys";
import type {
  ChatSettings,
  ConversationDetail,
  ConversationSummary,
  Health,
  ImportReport,
  InterruptAccepted,
  McpServersView,
  McpServerView,
  McpTransportPatch,
  Me,
  ModelList,
  Preset,
  PresetFields,
  PublicUser,
  SettingsPatch,
  SettingsView,
  ToolGroup,
} from "./types";

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    /** The error's `details`, when the server gave any (e.g. the names an import would overwrite). */
    readonly details?: unknown,
  ) {
    super(message);
    this.name = "ApiError";
  }
}

/** Turns a non-2xx response into an `ApiError` carrying the server's `{error: {code, message, details}}`. */
export async function errorFromResponse(response: Response): Promise<ApiError> {
  return errorFromBody(response.status, await response.text().catch(() => ""));
}

/** A failed answer's body as an `ApiError`; one that is not the server's error shape (a proxy's page) by its status. */
export function errorFromBody(status: number, text: string): ApiError {
  try {
    const body = JSON.parse(text) as { error?: { code?: string; message?: string; details?: unknown } };
    if (body.error?.message) {
      return new ApiError(status, body.error.code ?? "unknown", body.error.message, body.error.details);
    }
  } catch {
    // not JSON: fall through to a generic message
  }
  if (status === 413) return new ApiError(413, "payload_too_large", "The server refused this as too large.");
  return new ApiError(status, "client:http", `Request failed (HTTP ${status}).`, { status });
}

/** The browser could not reach the server at all. */
export const unreachable = () =>
  new ApiError(0, "client:network", "Cannot reach the ollama-web server. Is it running?");

/** Anything caught as an `ApiError`: a bug or a string becomes `client:failed` with its text. */
export function asApiError(error: unknown): ApiError {
  return error instanceof ApiError
    ? error
    : new ApiError(0, "client:failed", error instanceof Error ? error.message : String(error));
}

/**
 * A 401 means the session is gone (signed out elsewhere, expired): go to the sign-in page and come
 * back here afterwards. The auth routes answer 401 for a wrong password; those are not redirected.
 */
function onUnauthorized(path: string, response: Response): void {
  if (response.status !== 401 || path.startsWith("/api/auth/") || typeof window === "undefined") return;
  if (window.location.pathname === "/login") return;
  const here = `${window.location.pathname}${window.location.search}`;
  window.location.assign(`/login?next=${encodeURIComponent(here)}`);
}

async function request<T>(path: string, init?: RequestInit): Promise<T> {
  let response: Response;
  try {
    response = await fetch(path, {
      ...init,
      headers: init?.body ? { "Content-Type": "application/json", ...init.headers } : init?.headers,
    });
  } catch (error) {
    if (error instanceof DOMException && error.name === "AbortError") throw error;
    throw unreachable();
  }
  if (!response.ok) {
    onUnauthorized(path, response);
    throw await errorFromResponse(response);
  }
  return (response.status === 204 ? undefined : await response.json()) as T;
}

export function isAbort(error: unknown): boolean {
  return error instanceof DOMException && error.name === "AbortError";
}

export const api = {
  /** The health report; a 503 (database down) still carries the report, so it is returned too. */
  async health(): Promise<Health> {
    let response: Response;
    try {
      response = await fetch("/api/health", { cache: "no-store" });
    } catch {
      throw unreachable();
    }
    if (response.ok || response.status === 503) return (await response.json()) as Health;
    throw await errorFromResponse(response);
  },

  models: () => request<ModelList>("/api/models"),

  listConversations: ({ q, cursor, archived }: { q?: string; cursor?: string | null; archived?: boolean }) => {
    const params = new URLSearchParams();
    if (q) params.set("q", q);
    if (archived) params.set("archived", "1");
    if (cursor) params.set("cursor", cursor);
    const query = params.size ? `?${params}` : "";
    return request<{ conversations: ConversationSummary[]; nextCursor: string | null }>(`/api/conversations${query}`, {
      cache: "no-store",
    });
  },

  /** `presetId`: the preset to start with; left out, the user's default preset; null, none. */
  createConversation: (body: {
    title?: string;
    model?: string;
    presetId?: string | null;
    disabledToolGroups?: string[];
  }) =>
    request<{ conversation: ConversationSummary }>("/api/conversations", {
      method: "POST",
      body: JSON.stringify(body),
    }),

  conversation: (id: string) =>
    request<ConversationDetail>(`/api/conversations/${encodeURIComponent(id)}`, { cache: "no-store" }),

  updateConversation: (
    id: string,
    body: {
      title?: string;
      model?: string | null;
      settings?: ChatSettings;
      disabledToolGroups?: string[];
      pinned?: boolean;
      archived?: boolean;
    },
  ) =>
    request<{ conversation: ConversationSummary }>(`/api/conversations/${encodeURIComponent(id)}`, {
      method: "PATCH",
      body: JSON.stringify(body),
    }),

  /** `keepalive`: the request outlives the page (sent while the tab closes). */
  deleteConversation: (id: string, { keepalive = false }: { keepalive?: boolean } = {}) =>
    request<void>(`/api/conversations/${encodeURIComponent(id)}`, { method: "DELETE", keepalive }),

  stop: (id: string) =>
    request<{ stopping: true; runId: string }>(`/api/conversations/${encodeURIComponent(id)}/stop`, {
      method: "POST",
    }),

  /** The user's decision on a tool call that waits for approval; ApiError 409 once nothing waits. */
  decideApproval: (id: string, approvalId: string, decision: ApprovalDecision) =>
    request<ApprovalDecided>(
      `/api/conversations/${encodeURIComponent(id)}/approvals/${encodeURIComponent(approvalId)}`,
      { method: "POST", body: JSON.stringify({ decision }) },
    ),

  /** A message for the running agent: 202 while it runs, ApiError 409 once it has finished. */
  interrupt: (id: string, message: string) =>
    request<InterruptAccepted>(`/api/conversations/${encodeURIComponent(id)}/interrupt`, {
      method: "POST",
      body: JSON.stringify({ message }),
    }),

  /** Discards an unsent follow-up the server holds. */
  discardInterrupt: (id: string, interruptId: string) =>
    request<void>(`/api/conversations/${encodeURIComponent(id)}/interrupts/${encodeURIComponent(interruptId)}`, {
      method: "DELETE",
    }),

  /**
   * Starts a run; resolves with the SSE response once the server accepted it. A new question goes
   * after the end of the branch shown, or is a new version of `editOf`; `regenerate` answers the
   * question of that answer again.
   */
  chat: (
    body: {
      conversationId: string;
      model?: string;
      /** "dag" plans first (DAG mode); "auto" is the ReAct agent. */
      mode?: "auto" | "dag";
    } & (
      | {
          message: string;
          editOf?: string;
          /** Files of the conversation sent with this message (images reach a vision model). */
          attachmentIds?: string[];
          /** Unsent follow-ups this message sends: the server stops holding them. */
          interruptIds?: string[];
        }
      | { regenerate: string }
    ),
    signal?: AbortSignal,
  ) =>
    openStream("/api/chat", {
      method: "POST",
      headers: { "Content-Type": "application/json", Accept: "text/event-stream" },
      body: JSON.stringify(body),
      signal,
    }),

  /** Shows the branch through this message (another version, a search hit); the conversation as `GET` reads it. */
  selectBranch: (id: string, messageId: string) =>
    request<ConversationDetail>(`/api/conversations/${encodeURIComponent(id)}/branch`, {
      method: "POST",
      body: JSON.stringify({ messageId }),
    }),

  me: () => request<Me>("/api/auth/me", { cache: "no-store" }),

  login: (body: { username: string; password: string }) =>
    request<{ user: PublicUser }>("/api/auth/login", { method: "POST", body: JSON.stringify(body) }),

  signup: (body: { username: string; password: string; setupToken?: string }) =>
    request<{ user: PublicUser }>("/api/auth/signup", { method: "POST", body: JSON.stringify(body) }),

  logout: () => request<void>("/api/auth/logout", { method: "POST" }),

  /** The signed-in user's own password; this browser keeps a fresh session, every other one ends. */
  changePassword: (body: { currentPassword: string; newPassword: string }) =>
    request<{ user: PublicUser }>("/api/auth/password", { method: "POST", body: JSON.stringify(body) }),

  users: () => request<{ users: PublicUser[] }>("/api/admin/users", { cache: "no-store" }),

  addUser: (body: { username: string; password: string; role?: "admin" | "user" }) =>
    request<{ user: PublicUser }>("/api/admin/users", { method: "POST", body: JSON.stringify(body) }),

  updateUser: (id: string, body: { disabled?: boolean; role?: "admin" | "user"; password?: string }) =>
    request<{ user: PublicUser }>(`/api/admin/users/${encodeURIComponent(id)}`, {
      method: "PATCH",
      body: JSON.stringify(body),
    }),

  removeUser: (id: string) => request<void>(`/api/admin/users/${encodeURIComponent(id)}`, { method: "DELETE" }),

  adminSettings: () => request<{ signupOpen: boolean }>("/api/admin/settings", { cache: "no-store" }),

  setSignupOpen: (signupOpen: boolean) =>
    request<{ signupOpen: boolean }>("/api/admin/settings", { method: "PATCH", body: JSON.stringify({ signupOpen }) }),

  settings: () => request<SettingsView>("/api/settings", { cache: "no-store" }),

  presets: () => request<{ presets: Preset[] }>("/api/presets", { cache: "no-store" }),

  createPreset: (body: PresetFields) =>
    request<{ preset: Preset }>("/api/presets", { method: "POST", body: JSON.stringify(body) }),

  updatePreset: (id: string, body: Partial<PresetFields>) =>
    request<{ preset: Preset }>(`/api/presets/${encodeURIComponent(id)}`, {
      method: "PATCH",
      body: JSON.stringify(body),
    }),

  deletePreset: (id: string) => request<void>(`/api/presets/${encodeURIComponent(id)}`, { method: "DELETE" }),

  updateSettings: (body: SettingsPatch) =>
    request<Omit<SettingsView, "ollama" | "editable">>("/api/settings", {
      method: "PATCH",
      body: JSON.stringify(body),
    }),

  /** The tool groups a conversation can switch: web and each enabled MCP server. */
  toolGroups: () => request<{ groups: ToolGroup[] }>("/api/tool-groups", { cache: "no-store" }),

  fileUsage: (conversationId: string | null) =>
    request<FileUsage>(cacheKeys.fileUsage(conversationId), { cache: "no-store" }),

  mcpServers: () => request<McpServersView>("/api/admin/mcp/servers", { cache: "no-store" }),

  addMcpServer: (body: { name: string; enabled?: boolean; transport: McpTransportPatch }) =>
    request<{ server: McpServerView }>("/api/admin/mcp/servers", { method: "POST", body: JSON.stringify(body) }),

  /** `null` env or header values keep the saved ones. */
  updateMcpServer: (
    name: string,
    body: {
      enabled?: boolean;
      transport?: McpTransportPatch;
      disabledTools?: string[];
      toolApproval?: McpToolApproval;
    },
  ) =>
    request<{ server: McpServerView }>(`/api/admin/mcp/servers/${encodeURIComponent(name)}`, {
      method: "PATCH",
      body: JSON.stringify(body),
    }),

  removeMcpServer: (name: string) =>
    request<void>(`/api/admin/mcp/servers/${encodeURIComponent(name)}`, { method: "DELETE" }),

  /** "Test": connects the server now; its state and tools. */
  connectMcpServer: (name: string) =>
    request<{ server: McpServerView }>(`/api/admin/mcp/servers/${encodeURIComponent(name)}/connect`, {
      method: "POST",
    }),

  importMcpServers: (body: { config: string; replace?: string[] }) =>
    request<{ added: string[]; replaced: string[] }>("/api/admin/mcp/import", {
      method: "POST",
      body: JSON.stringify(body),
    }),

  /** A run's events after `after` ("0", "12" or "12.3"), then live ones while it runs. */
  runEvents: (runId: string, after: string, signal?: AbortSignal) =>
    openStream(`/api/runs/${encodeURIComponent(runId)}/events?after=${encodeURIComponent(after)}`, {
      headers: { Accept: "text/event-stream" },
      cache: "no-store",
      signal,
    }),

  /**
   * Pulls a model (onto one Ollama server, else every one) once the server accepted it: its progress
   * events as they arrive; abort `signal` to cancel.
   */
  pullModel: async (model: string, signal: AbortSignal, server?: string): Promise<AsyncIterable<PullEvent>> =>
    ndjsonEvents<PullEvent>(
      await openStream("/api/admin/models/pull", {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ model, server }),
        signal,
      }),
    ),

  /** Deletes a model from one Ollama server, else from every one that has it. */
  deleteModel: (model: string, server?: string) =>
    request<void>(
      `/api/admin/models?model=${encodeURIComponent(model)}${server ? `&server=${encodeURIComponent(server)}` : ""}`,
      { method: "DELETE" },
    ),

  ollamaServers: () => request<{ servers: OllamaServerStatus[] }>("/api/admin/models/servers", { cache: "no-store" }),

  modelDetails: (model: string) =>
    request<{ model: ModelDetails }>(`/api/admin/models/details?model=${encodeURIComponent(model)}`, {
      cache: "no-store",
    }),

  loadedModels: () => request<{ models: PooledLoadedModel[] }>("/api/admin/models/loaded", { cache: "no-store" }),

  unloadModel: (model: string, server?: string) =>
    request<void>("/api/admin/models/unload", { method: "POST", body: JSON.stringify({ model, server }) }),
};

/** The start of a text or Word file as the model reads it (`GET …/files/:fileId/text`). */
export function fileText(conversationId: string, fileId: string, signal?: AbortSignal) {
  return request<{ text: string; truncated: boolean; chars: number }>(`${fileUrl(conversationId, fileId)}/text`, {
    cache: "no-store",
    signal,
  });
}

/** Where one conversation's export downloads from: Markdown to read, or JSON (with its files or not) to import. */
export function exportUrl(conversationId: string, format: "md" | "json", withFiles = false): string {
  return `/api/conversations/${encodeURIComponent(conversationId)}/export?format=${format}${withFiles ? "&files=1" : ""}`;
}

/** Where the ZIP of every conversation downloads from. */
export const exportAllUrl = (withFiles: boolean) => `/api/conversations/export${withFiles ? "?files=1" : ""}`;

/** Imports a conversation's JSON export or the ZIP of all of them, sent as it is; the server reports what it did. */
export function importConversations(file: File): Promise<ImportReport> {
  return request<ImportReport>("/api/conversations/import", {
    method: "POST",
    body: file,
    headers: { "Content-Type": file.type || "application/octet-stream" },
  });
}

/** Where a conversation's file downloads from (served as an attachment, never inline). */
export function fileUrl(conversationId: string, fileId: string): string {
  return `/api/conversations/${encodeURIComponent(conversationId)}/files/${encodeURIComponent(fileId)}`;
}

async function openStream(path: string, init: RequestInit): Promise<ReadableStream<Uint8Array>> {
  let response: Response;
  try {
    response = await fetch(path, init);
  } catch (error) {
    if (isAbort(error)) throw error;
    throw unreachable();
  }
  if (!response.ok || !response.body) {
    onUnauthorized(path, response);
    throw await errorFromResponse(response);
  }
  return response.body;
}

/** One JSON value per line of an NDJSON body. */
async function* ndjsonEvents<T>(body: ReadableStream<Uint8Array>): AsyncGenerator<T> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buffer = "";
  for (let read = await reader.read(); !read.done; read = await reader.read()) {
    buffer += decoder.decode(read.value, { stream: true });
    const lines = buffer.split("\n");
    buffer = lines.pop() ?? "";
    for (const line of lines) if (line.trim()) yield JSON.parse(line) as T;
  }
}
