/**
 * Uploads one file to a conversation (`POST /api/conversations/:id/files`, multipart field `file`).
 * XMLHttpRequest rather than fetch: only it reports upload progress.
 */
import { ApiError } from "./api";
import type { UploadedFile } from "./types";

export interface UploadOptions {
  conversationId: string;
  file: File;
  /** Fraction sent, 0..1. */
  onProgress?: (fraction: number) => void;
  signal?: AbortSignal;
}

function errorFromXhr(xhr: XMLHttpRequest): ApiError {
  try {
    const body = JSON.parse(xhr.responseText) as { error?: { code?: string; message?: string } };
    if (body.error?.message) return new ApiError(xhr.status, body.error.code ?? "unknown", body.error.message);
  } catch {
    // not JSON: a generic message below
  }
  if (xhr.status === 413) return new ApiError(413, "payload_too_large", "The file is too large to attach.");
  return new ApiError(xhr.status, "http", `Upload failed (${xhr.status} ${xhr.statusText}).`);
}

export function uploadFile({ conversationId, file, onProgress, signal }: UploadOptions): Promise<UploadedFile> {
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open("POST", `/api/conversations/${encodeURIComponent(conversationId)}/files`);
    xhr.responseType = "text";
    xhr.upload.addEventListener("progress", (event) => {
      if (event.lengthComputable && event.total > 0) onProgress?.(event.loaded / event.total);
    });
    xhr.addEventListener("load", () => {
      if (xhr.status === 201 || xhr.status === 200) {
        try {
          resolve(JSON.parse(xhr.responseText) as UploadedFile);
        } catch {
          reject(new ApiError(xhr.status, "http", "The server's answer to the upload was not understood."));
        }
      } else reject(errorFromXhr(xhr));
    });
    xhr.addEventListener("error", () =>
      reject(new ApiError(0, "network", "The upload failed: the server could not be reached.")),
    );
    xhr.addEventListener("abort", () => reject(new DOMException("The upload was cancelled.", "AbortError")));
    signal?.addEventListener("abort", () => xhr.abort(), { once: true });
    const form = new FormData();
    form.append("file", file, file.name);
    xhr.send(form);
  });
}
