/** The conversations: listing and searching them, one with its messages, changing, branching, export and import. */
import type { z } from "zod";
import type {
  createConversationBody,
  exportQuery,
  listConversationsQuery,
  selectBranchBody,
  updateConversationBody,
} from "@/app/api/conversations/schema";
import type { CitationReport } from "@/lib/protocol/citations";
import type { ConversationDetail, ConversationSummary, ImportReport } from "../types";
import { jsonBody, request } from "./request";

type ListQuery = z.input<typeof listConversationsQuery>;

/**
 * A page of the list: the search, the archived ones or the others, one project's only, and where the
 * page starts (`nextCursor`).
 */
export interface ListConversationsRequest {
  q?: ListQuery["q"];
  cursor?: ListQuery["cursor"] | null;
  archived?: boolean;
  project?: ListQuery["project"];
}

/** `presetId`: the preset to start with; left out, the user's default preset; null, none. */
export type CreateConversationRequest = z.input<typeof createConversationBody>;
export type UpdateConversationRequest = z.input<ReturnType<typeof updateConversationBody>>;
export type SelectBranchRequest = z.input<typeof selectBranchBody>;
export type ExportFormat = NonNullable<z.input<typeof exportQuery>["format"]>;

/** A conversation's URL; its runs', files' and exports' routes are below it. */
export const conversationPath = (id: string) => `/api/conversations/${encodeURIComponent(id)}`;

export const conversationsApi = {
  listConversations: ({ q, cursor, archived, project }: ListConversationsRequest) => {
    const params = new URLSearchParams();
    if (q) params.set("q", q);
    if (archived) params.set("archived", "1");
    if (project) params.set("project", project);
    if (cursor) params.set("cursor", cursor);
    const query = params.size ? `?${params}` : "";
    return request<{ conversations: ConversationSummary[]; nextCursor: string | null }>(`/api/conversations${query}`, {
      cache: "no-store",
    });
  },

  createConversation: (body: CreateConversationRequest) =>
    request<{ conversation: ConversationSummary }>("/api/conversations", jsonBody("POST", body)),

  conversation: (id: string) => request<ConversationDetail>(conversationPath(id), { cache: "no-store" }),

  updateConversation: (id: string, body: UpdateConversationRequest) =>
    request<{ conversation: ConversationSummary }>(conversationPath(id), jsonBody("PATCH", body)),

  /** `keepalive`: the request outlives the page (sent while the tab closes). */
  deleteConversation: (id: string, { keepalive = false }: { keepalive?: boolean } = {}) =>
    request<void>(conversationPath(id), { method: "DELETE", keepalive }),

  /** Shows the branch through this message (another version, a search hit); the conversation as `GET` reads it. */
  selectBranch: (id: string, messageId: SelectBranchRequest["messageId"]) =>
    request<ConversationDetail>(
      `${conversationPath(id)}/branch`,
      jsonBody("POST", { messageId } satisfies SelectBranchRequest),
    ),

  /** "Check citations": the verifier judges the answer's citations; the new report, stored in place of the old. */
  checkCitations: (id: string, messageId: string) =>
    request<CitationReport>(`${conversationPath(id)}/messages/${encodeURIComponent(messageId)}/citations`, {
      method: "POST",
    }),
};

/** Where one conversation's export downloads from: Markdown to read, or JSON (with its files or not) to import. */
export function exportUrl(conversationId: string, format: ExportFormat, withFiles = false): string {
  return `${conversationPath(conversationId)}/export?format=${format}${withFiles ? "&files=1" : ""}`;
}

/** Where one answer downloads from as a document: Markdown or Word, with its references. */
export function answerExportUrl(conversationId: string, messageId: string, format: "md" | "docx"): string {
  return `${conversationPath(conversationId)}/messages/${encodeURIComponent(messageId)}/export?format=${format}`;
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
