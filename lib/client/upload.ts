/**
 * Uploads one file to a conversation (`POST /api/conversations/:id/files`, multipart field `file`)
 * or to a project (`POST /api/projects/:id/files`). XMLHttpRequest rather than fetch: only it
 * reports upload progress.
 */
import { ApiError, errorFromBody, unreachable } from "./api/request";
import type { UploadedFile } from "./types";

/** The conversation the file goes to, or the project. */
export type UploadOptions = (
  | { conversationId: string; projectId?: never }
  | { projectId: string; conversationId?: never }
) & {
  file: File;
  /** Fraction sent, 0..1. */
  onProgress?: (fraction: number) => void;
  signal?: AbortSignal;
};

export function uploadFile({
  conversationId,
  projectId,
  file,
  onProgress,
  signal,
}: UploadOptions): Promise<UploadedFile> {
  const holder =
    projectId !== undefined
      ? `projects/${encodeURIComponent(projectId)}`
      : `conversations/${encodeURIComponent(conversationId)}`;
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open("POST", `/api/${holder}/files`);
    xhr.responseType = "text";
    xhr.upload.addEventListener("progress", (event) => {
      if (event.lengthComputable && event.total > 0) onProgress?.(event.loaded / event.total);
    });
    xhr.addEventListener("load", () => {
      if (xhr.status === 201 || xhr.status === 200) {
        try {
          resolve(JSON.parse(xhr.responseText) as UploadedFile);
        } catch {
          reject(
            new ApiError(xhr.status, "client:upload_reply", "The server's answer to the upload was not understood."),
          );
        }
      } else reject(errorFromBody(xhr.status, xhr.responseText));
    });
    xhr.addEventListener("error", () => reject(unreachable()));
    xhr.addEventListener("abort", () => reject(new DOMException("The upload was cancelled.", "AbortError")));
    signal?.addEventListener("abort", () => xhr.abort(), { once: true });
    const form = new FormData();
    form.append("file", file, file.name);
    xhr.send(form);
  });
}
