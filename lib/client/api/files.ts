/** A conversation's files (uploads are `lib/client/upload.ts`: XMLHttpRequest, for its progress) and the storage they use. */

import { cacheKeys } from "@/lib/client/cache-keys";
import type { FileUsage } from "@/lib/files/quota";
import type { FileSearchResult } from "../types";
import { conversationPath } from "./conversations";
import { request } from "./request";

/** Where a conversation's file downloads from (served as an attachment, never inline). */
export function fileUrl(conversationId: string, fileId: string): string {
  return `${conversationPath(conversationId)}/files/${encodeURIComponent(fileId)}`;
}

/** The start of a text or Word file as the model reads it (`GET …/files/:fileId/text`). */
export function fileText(conversationId: string, fileId: string, signal?: AbortSignal) {
  return request<{ text: string; truncated: boolean; chars: number }>(`${fileUrl(conversationId, fileId)}/text`, {
    cache: "no-store",
    signal,
  });
}

export const filesApi = {
  /** The user's file storage, and the conversation's file count when there is one. */
  fileUsage: (conversationId: string | null) =>
    request<FileUsage>(cacheKeys.fileUsage(conversationId), { cache: "no-store" }),

  /** Words inside the user's files, for the sidebar's search. */
  searchFiles: (q: string) => request<FileSearchResult>(cacheKeys.fileSearch(q), { cache: "no-store" }),
};
