import "server-only";
import { type Db, trackBackground } from "@/lib/db/client";
import { claimFilesToIndex, countFilesToIndex, readFileForIndex, writeFileIndex } from "@/lib/db/library";
import { attachmentText, textFormatOf } from "@/lib/files/attachment-text";
import { DocxError } from "@/lib/files/docx-html";
import { openPdfCached, PdfError, pdfLimits } from "@/lib/tools/pdf/pdf-text";
import type { ToolLimits } from "@/lib/tools/services";
import { keyedSingleton } from "@/lib/util/process-singleton";
import { cutPassages, type Passage, pdfPassages } from "./passages";

/**
 * Putting stored files into the library index (docs/architecture.md, "The library index"): a file's
 * text is read the way the tools read it — a PDF page by page in the PDF worker, other documents
 * through the attachment reader, both with their limits — cut into passages and written whole. One
 * file at a time per process; a file asked for while it is being indexed waits for that indexing.
 * A file that cannot be read stays unindexed (and out of search results) with the reason in the log;
 * this process does not try it again, the next start does.
 */

interface IndexerState {
  /** The indexing of a file in progress, by file id. */
  running: Map<string, Promise<void>>;
  /** Files this process failed to read. */
  failed: Set<string>;
  /** The queue: each indexing starts when the one before ends. */
  tail: Promise<void>;
}

const state = keyedSingleton<IndexerState>("libraryIndexer")("", () => ({
  running: new Map(),
  failed: new Set(),
  tail: Promise.resolve(),
}));

/** The passages of a stored file's text; none for an image. Throws PdfError / DocxError when it cannot be read. */
export async function filePassages(
  file: { mime: string; sha256: string; bytes: Buffer },
  limits: ToolLimits,
): Promise<Passage[]> {
  const type = file.mime.split(";")[0]?.trim().toLowerCase();
  if (type === "application/pdf") {
    const pdf = await openPdfCached(file.sha256, () => file.bytes, pdfLimits(limits));
    try {
      const pages: string[] = [];
      for (let index = 0; index < pdf.pageCount; index++) pages.push(await pdf.pageText(index));
      return pdfPassages(pages);
    } finally {
      await pdf.close();
    }
  }
  const format = textFormatOf(file.mime);
  if (!format) return [];
  return cutPassages((await attachmentText(file, format, limits)).text);
}

async function indexNow(db: Db, fileId: string, limits: ToolLimits): Promise<void> {
  const file = await readFileForIndex(db, fileId);
  if (!file || file.indexedAt !== null) return;
  try {
    await writeFileIndex(db, fileId, await filePassages(file, limits));
  } catch (error) {
    if (!(error instanceof PdfError || error instanceof DocxError)) throw error;
    state.failed.add(fileId);
    console.warn(`[library] ${file.filename} (${fileId}) was not indexed: ${error.message}`);
  }
}

/** Indexes the files (those not indexed yet), one after the other; resolves when all are done. */
export function indexFiles(db: Db, fileIds: string[], limits: ToolLimits): Promise<void> {
  const waits = fileIds
    .filter((id) => !state.failed.has(id))
    .map((id) => {
      const running = state.running.get(id);
      if (running) return running;
      const done = state.tail.then(() => indexNow(db, id, limits));
      const settled = done
        .catch((error: unknown) => {
          state.failed.add(id);
          console.error(`[library] indexing ${id} failed`, error);
        })
        .finally(() => state.running.delete(id));
      state.running.set(id, settled);
      state.tail = settled;
      trackBackground(db, settled);
      return settled;
    });
  return Promise.all(waits).then(() => undefined);
}

const START_BATCH = 50;

/**
 * The start step: every stored file not in the index yet (files of an earlier release, files a
 * crash left) is indexed in the background, oldest first, with its progress in the log. `claimer`
 * is this app instance: files are claimed a batch at a time, so instances starting together each
 * index their own share, and a file another registered instance claimed is left to it.
 */
export async function indexStoredFiles(db: Db, limits: ToolLimits, claimer: string): Promise<void> {
  const total = await countFilesToIndex(db);
  if (total === 0) return;
  console.log(`[library] ${total} stored file(s) to index`);
  let done = 0;
  for (;;) {
    const batch = await claimFilesToIndex(db, { claimer, limit: START_BATCH });
    if (batch.length === 0) break;
    await indexFiles(
      db,
      batch.map((file) => file.id),
      limits,
    );
    done += batch.length;
    console.log(`[library] indexed ${done} file(s), ${await countFilesToIndex(db)} left`);
  }
  const left = await countFilesToIndex(db);
  if (left > 0) {
    console.warn(
      `[library] ${left} file(s) not indexed: unreadable (see above; the next start tries again), or another instance is indexing them`,
    );
  }
}
