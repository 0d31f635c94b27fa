import { createHash } from "node:crypto";
import { ATTACHMENT_PREFIX, type StoredFile } from "./attachment-reader";
import { fetchFailure } from "./fetch-errors";
import type { ToolError } from "./outcome";
import { FetchError } from "./safe-http";
import type { ToolServices } from "./services";

/**
 * Where a PDF comes from: an http(s) URL (fetched through the SSRF guard every call) or an
 * `attachment:<id>` of the current conversation (read from the database; one that is not a PDF is
 * read as text by `attachment-reader.ts`). Anything else — a local path, file:, another
 * conversation's attachment — is refused.
 */

export type PdfSource = { kind: "url"; url: string } | { kind: "attachment"; fileId: string };

export interface LoadedPdf {
  bytes: Buffer;
  /** Cache key: the content hash, so continuation calls reuse parsed pages. */
  key: string;
  label: string;
  /** What the answer's source list calls it: the file's name, or the URL. */
  title: string;
}

export function parsePdfSource(value: string): PdfSource | { error: ToolError } {
  const trimmed = value.trim();
  if (trimmed.toLowerCase().startsWith(ATTACHMENT_PREFIX)) {
    const fileId = trimmed.slice(ATTACHMENT_PREFIX.length).trim();
    return fileId
      ? { kind: "attachment", fileId }
      : { error: { kind: "invalid_url", message: "Invalid attachment reference." } };
  }
  if (/^https?:\/\//i.test(trimmed)) return { kind: "url", url: trimmed };
  return {
    error: {
      kind: "invalid_url",
      message:
        "Only http(s) URLs and attachment:<id> references can be read; local paths and other schemes are refused.",
    },
  };
}

const TOO_LARGE: ToolError = { kind: "too_large", message: "PDF exceeds the configured size limit." };

/** A stored PDF, ready to open. */
export function attachmentPdf(file: StoredFile, services: ToolServices): LoadedPdf | { error: ToolError } {
  if (file.size > services.limits.MAX_FETCH_MB * 1024 * 1024) return { error: TOO_LARGE };
  return {
    bytes: file.bytes,
    key: file.sha256,
    label: `${ATTACHMENT_PREFIX}${file.id} (${file.filename})`,
    title: file.filename,
  };
}

/** A PDF from the web, through the SSRF guard. */
export async function fetchPdf(
  url: string,
  services: ToolServices,
  signal: AbortSignal,
): Promise<LoadedPdf | { error: ToolError }> {
  try {
    const resource = await services.fetch(url, { signal, maxBytes: services.limits.MAX_FETCH_MB * 1024 * 1024 });
    const key = createHash("sha256").update(resource.bytes).digest("hex");
    return { bytes: resource.bytes, key, label: url, title: url };
  } catch (error) {
    if (signal.aborted) throw error;
    if (error instanceof FetchError && error.tooLarge) return { error: TOO_LARGE };
    return { error: fetchFailure(error, url) };
  }
}
