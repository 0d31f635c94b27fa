import { pageEnd } from "../page-fit";
import type { PdfText } from "./pdf-document";

/**
 * Lossless paging over a PDF's text with a (page, offset-in-page) cursor. Following `next*` from
 * {0, 0} until `hasMore` is false yields exactly the concatenation of every page's text, for any
 * limits; a call parses at most `maxPages` pages, however long the document is.
 */

export interface PdfCursor {
  pageIndex: number;
  pageCharOffset: number;
}

export interface PdfWindowLimits {
  /** UTF-16 code units; a surrogate pair is never split (see `readWindow`). */
  maxChars: number;
  /** Pages whose text this call may touch: a work limit, not a document limit. */
  maxPages: number;
}

export interface PdfWindow {
  text: string;
  startPage: number;
  startOffset: number;
  nextPage: number;
  nextOffset: number;
  /** True when characters remain after the window (see `readWindow` for the one conservative case). */
  hasMore: boolean;
  /** Pages touched by this call. */
  pagesRead: number;
  /** 1-based pages the window covers (a part of, or an empty page whole); if none, the pages touched. */
  firstPage: number;
  lastPage: number;
  totalPages: number;
}

function assertCount(name: string, value: number, min: number): void {
  if (!Number.isInteger(value) || value < min) {
    throw new RangeError(`${name} must be an integer >= ${min}, got ${value}.`);
  }
}

/**
 * Reads from `cursor` up to `maxChars` characters, touching at most `maxPages` pages.
 *
 * - Where it ends on the page it ends on is `pageEnd`'s rule (after a line break, space or CJK pause
 *   in the last 15 % of its part of that page, else at a grapheme boundary), so words are not cut in
 *   two; a surrogate pair is never split: only when that would leave the window empty (maxChars 1 and
 *   the pair comes first) does it hold the whole pair, one code unit over.
 * - A cursor beyond its page (a stale token over a changed file) continues at the next page.
 * - `hasMore` is exact except when the page budget runs out just before an empty last page: then it
 *   is true and the next window is empty with `hasMore` false.
 */
export async function readWindow(pdf: PdfText, cursor: PdfCursor, limits: PdfWindowLimits): Promise<PdfWindow> {
  assertCount("pageIndex", cursor.pageIndex, 0);
  assertCount("pageCharOffset", cursor.pageCharOffset, 0);
  assertCount("maxChars", limits.maxChars, 1);
  assertCount("maxPages", limits.maxPages, 1);

  const total = pdf.pageCount;
  let page = cursor.pageIndex;
  let offset = cursor.pageCharOffset;
  let text = "";
  let pagesRead = 0;
  let firstCovered: number | undefined;
  let lastCovered: number | undefined;
  let firstTouched: number | undefined;

  while (page < total && pagesRead < limits.maxPages) {
    const room = limits.maxChars - text.length;
    // A full window stops, except before an empty last page, which it consumes so hasMore is exact.
    if (room <= 0 && !(page === total - 1 && offset === 0)) break;
    const pageText = await pdf.pageText(page);
    pagesRead++;
    firstTouched ??= page;
    const start = Math.min(offset, pageText.length);
    let end = room > 0 ? pageEnd(pageText, start, room) : start;
    // A surrogate pair held whole one code unit over the room only when the window would else be empty.
    if (end - start > room && text.length > 0) end = start;
    text += pageText.slice(start, end);
    if (end > start || pageText.length === 0) {
      firstCovered ??= page;
      lastCovered = page;
    }
    if (end < pageText.length) {
      offset = end;
      break;
    }
    page++;
    offset = 0;
  }

  const lastTouched = firstTouched === undefined ? undefined : firstTouched + pagesRead - 1;
  // Nothing touched: the cursor was already at (or past) the end.
  const fallback = total === 0 ? -1 : Math.min(cursor.pageIndex, total - 1);
  return {
    text,
    startPage: cursor.pageIndex,
    startOffset: cursor.pageCharOffset,
    nextPage: Math.min(page, total),
    nextOffset: page < total ? offset : 0,
    hasMore: page < total,
    pagesRead,
    firstPage: (firstCovered ?? firstTouched ?? fallback) + 1,
    lastPage: (lastCovered ?? lastTouched ?? fallback) + 1,
    totalPages: total,
  };
}

/**
 * True when the whole document is whitespace: `window` starts at the beginning and reaches the end
 * with no text. The PDF has no text layer (a scan); the tool says "No extractable text (scanned
 * PDF?)" instead of returning blank text.
 */
export function lacksTextLayer(window: PdfWindow): boolean {
  return window.startPage === 0 && window.startOffset === 0 && !window.hasMore && window.text.trim() === "";
}

/**
 * True when `window`, read with room for `maxChars`, covers pages with no text on them: it is
 * whitespace and ended where its page budget did, not where its room did (a window of a few
 * characters that happens to fall on a blank line is not a blank page). The tool names the pages,
 * so "no text on pages 1–25" is not read as "no text in the PDF", and reads on.
 */
export function coversBlankPages(window: PdfWindow, maxChars: number): boolean {
  return window.pagesRead > 0 && window.text.length < maxChars && window.text.trim() === "";
}
