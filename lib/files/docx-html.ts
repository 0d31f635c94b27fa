import "server-only";
import { Worker } from "node:worker_threads";
import type { Config } from "@/lib/env-config";
import { AppError } from "@/lib/errors";
import { Semaphore } from "@/lib/util/semaphore";
import { localScript } from "./local-script";
import { inflatedSize, isWordZip, MAX_ENTRIES, zipEntries } from "./zip-entries";

/**
 * DOCX → HTML with mammoth, which inflates the whole ZIP into memory and parses its XML: so the ZIP
 * is measured first (a bomb is refused before any inflating into memory) and mammoth runs in a
 * worker thread with a heap cap, under a time budget, a few at a time. A file stopped by a limit or
 * unreadable is an error value for that file; the server's thread never converts anything.
 */

export interface DocxLimits {
  /** DOCX_MAX_INFLATED_MB: what all entries may inflate to together. */
  maxInflatedBytes: number;
  /** DOCX_TIME_BUDGET_S, in ms: the worker is terminated after it. */
  timeMs: number;
  /** DOCX_WORKER_MEMORY_MB: the worker's JavaScript heap. */
  memoryMb: number;
  /** DOCX_WORKER_CONCURRENCY: conversions at once; more wait their turn. */
  concurrency: number;
}

export function docxLimits(
  settings: Pick<
    Config,
    "DOCX_MAX_INFLATED_MB" | "DOCX_TIME_BUDGET_S" | "DOCX_WORKER_MEMORY_MB" | "DOCX_WORKER_CONCURRENCY"
  >,
): DocxLimits {
  return {
    maxInflatedBytes: settings.DOCX_MAX_INFLATED_MB * MB,
    timeMs: settings.DOCX_TIME_BUDGET_S * 1000,
    memoryMb: settings.DOCX_WORKER_MEMORY_MB,
    concurrency: settings.DOCX_WORKER_CONCURRENCY,
  };
}

/** The HTTP refusal for a DOCX that failed: a limit is a 413, a damaged file a 415. */
export function docxRefusal(error: DocxError, suffix = ""): AppError {
  const limit = error.reason === "too_large" || error.reason === "timeout";
  const code = limit ? "payload_too_large:docx" : "unsupported_media_type:docx";
  return new AppError(code, `${error.message}${suffix}`);
}

export type DocxFailure = "not_docx" | "too_large" | "timeout" | "unreadable";

export class DocxError extends Error {
  constructor(
    readonly reason: DocxFailure,
    message: string,
  ) {
    super(message);
    this.name = "DocxError";
  }
}

const WORKER_SCRIPT = "docx-worker.mjs";
const MB = 1024 * 1024;
const slots = new Semaphore();

export async function docxToHtml(bytes: Buffer, limits: DocxLimits): Promise<string> {
  const entries = zipEntries(bytes, MAX_ENTRIES);
  if (!isWordZip(entries)) throw new DocxError("not_docx", "The file is not a Word document (DOCX).");
  let size: number | null;
  try {
    size = await inflatedSize(bytes, entries, limits.maxInflatedBytes);
  } catch (error) {
    throw new DocxError("unreadable", `The Word document is damaged (${(error as Error).message}).`);
  }
  if (size === null) {
    const limit = Math.round(limits.maxInflatedBytes / MB);
    throw new DocxError("too_large", `The Word document unpacks to more than the ${limit} MB limit.`);
  }
  const release = await slots.acquire(limits.concurrency);
  try {
    return await convertInWorker(bytes, limits);
  } finally {
    release();
  }
}

function convertInWorker(bytes: Buffer, limits: DocxLimits): Promise<string> {
  return new Promise((resolve, reject) => {
    const copy = new Uint8Array(bytes);
    const worker = new Worker(localScript(WORKER_SCRIPT, "DOCX converter"), {
      workerData: { bytes: copy },
      transferList: [copy.buffer],
      resourceLimits: { maxOldGenerationSizeMb: limits.memoryMb, maxYoungGenerationSizeMb: 16 },
      env: {},
    });
    let settled = false;
    const finish = (outcome: { html: string } | DocxError) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      void worker.terminate();
      if (outcome instanceof DocxError) reject(outcome);
      else resolve(outcome.html);
    };
    const timer = setTimeout(() => {
      const seconds = limits.timeMs / 1000;
      finish(new DocxError("timeout", `Converting the Word document took longer than ${seconds} s and was stopped.`));
    }, limits.timeMs);
    worker.on("message", (answer: { ok: true; html: string } | { ok: false; message: string }) => {
      finish(answer.ok ? answer : new DocxError("unreadable", `The Word document cannot be read (${answer.message}).`));
    });
    worker.on("error", (error: NodeJS.ErrnoException) => {
      finish(
        error.code === "ERR_WORKER_OUT_OF_MEMORY"
          ? new DocxError("too_large", `Converting the Word document needed more than ${limits.memoryMb} MB.`)
          : new DocxError("unreadable", `The Word document cannot be read (${error.message}).`),
      );
    });
    worker.on("exit", (code) => {
      finish(new DocxError("unreadable", `The Word document converter stopped (exit code ${code}).`));
    });
  });
}
