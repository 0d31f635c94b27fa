import "server-only";
import { sha256 } from "@/lib/db/files";
import type { StoredFile } from "@/lib/db/schema";
import type { Config } from "@/lib/env-config";
import { AppError, type ServerErrorCode } from "@/lib/errors";
import { type QuotaRefusal, quotaError } from "@/lib/files/quota";
import { checkUpload } from "@/lib/files/uploads";
import type { ExportedFile } from "./format";

/**
 * What an import reports (docs/api.md, "Export and import"), and the checks its conversation and
 * project documents share: their files go through the upload checks.
 */

/** Why something was not imported: a code the UI words in its language, the English reason, its details. */
export interface SkipReason {
  code: ServerErrorCode;
  reason: string;
  details?: Record<string, unknown>;
}

/** `entry`: the ZIP entry it came from; `title`: the conversation's (or the project's name), when its document has one. */
export type Skipped = SkipReason & { title?: string; entry?: string };

export interface ImportReport {
  imported: { title: string; id: string }[];
  /** The projects the import made, under their new ids. */
  projects: { name: string; id: string }[];
  skipped: Skipped[];
}

export const because = (code: ServerErrorCode, reason: string, details?: Record<string, unknown>): SkipReason => ({
  code,
  reason,
  ...(details ? { details } : {}),
});

export const invalid = (problem: string): SkipReason =>
  because("bad_request:import_invalid", `invalid export: ${problem}`, { problem });

/** Why a document of this version is not read, or null when it is one of `readable`. */
export function versionRefusal(version: unknown, readable: readonly number[]): SkipReason | null {
  if (readable.some((known) => known === version)) return null;
  const named = JSON.stringify(version) ?? "none";
  const supported = readable.join(", ");
  return because(
    "bad_request:import_version",
    `export version ${named} is not one this server reads (versions ${supported}).`,
    { version: named, supported },
  );
}

export function refusedByQuota(refused: QuotaRefusal, what: "conversation" | "project"): SkipReason {
  const error = quotaError(refused);
  return because(error.code, `${error.message} The ${what} was not imported.`, error.details as never);
}

export function unique(rows: { id: string }[], what: string): string | null {
  return uniqueBy(
    rows,
    (row) => row.id,
    (id) => `${what} ${id} appears twice.`,
  );
}

export function uniqueBy<Row, Key>(rows: Row[], key: (row: Row) => Key, twice: (key: Key) => string): string | null {
  const seen = new Set<Key>();
  for (const row of rows) {
    if (seen.has(key(row))) return twice(key(row));
    seen.add(key(row));
  }
  return null;
}

/** What the files with content claim to add, by their sizes: for the quick quota look before they are decoded. */
export function claimedBy(files: ExportedFile[]): { files: number; bytes: number } {
  const withContent = files.filter((file) => file.bytes !== undefined);
  return { files: withContent.length, bytes: withContent.reduce((total, file) => total + file.size, 0) };
}

/** A file that passed the checks, without its bytes: they are decoded again, one file at a time, to be stored. */
export type CheckedFile = Omit<
  StoredFile,
  "conversationId" | "projectId" | "indexedAt" | "indexClaimedBy" | "bytes"
> & {
  base64: string;
};

export const bytesOf = (files: CheckedFile[]) => files.reduce((total, file) => total + file.size, 0);

/**
 * The files whose content the export holds, through the same checks as an upload; the first one
 * refused (or whose content is not what its SHA-256 says) skips its document. One decoded file is
 * held at a time: the document already holds them all, as base64.
 */
export async function checkFiles(files: ExportedFile[], config: Config): Promise<CheckedFile[] | SkipReason> {
  const checked: CheckedFile[] = [];
  for (const file of files) {
    if (file.bytes === undefined) continue;
    const bytes = Buffer.from(file.bytes, "base64");
    try {
      const upload = await checkUpload({
        filename: file.filename,
        bytes,
        maxBytes: config.MAX_FETCH_MB * 1024 * 1024,
        imageLimits: { maxPixels: config.MAX_IMAGE_PIXELS, maxFrames: config.MAX_IMAGE_FRAMES },
      });
      const { bytes: base64, ...meta } = file;
      const row = { ...meta, ...upload, base64, size: bytes.length, sha256: sha256(bytes) };
      if (row.sha256 !== file.sha256) {
        return because(
          "bad_request:import_file_damaged",
          `file ${JSON.stringify(file.filename)}: its content does not match its SHA-256 (damaged export).`,
          { filename: file.filename },
        );
      }
      checked.push(row);
    } catch (error) {
      if (!(error instanceof AppError)) throw error;
      return because(
        "bad_request:import_file_refused",
        `file ${JSON.stringify(file.filename)} was refused: ${error.message}`,
        {
          filename: file.filename,
          refusal: { code: error.code, message: error.message, details: error.details },
        },
      );
    }
  }
  return checked;
}
