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

const isHighSurrogate = (code: number) => code >= 0xd800 && code <= 0xdbff;
const isLowSurrogate = (code: number) => code >= 0xdc00 && code <= 0xdfff;

/** True when cutting `text` at `index` would separate the halves of a surrogate pair. */
function splitsPair(text: string, index: number): boolean {
  return (
    index > 0 &&
    index < text.length &&
    isHighSurrogate(text.charCodeAt(index - 1)) &&
    isLowSurrogate(text.charCodeAt(index))
  );
}

/** Share of a window, at its end, searched for a space or line break to end at instead of mid-word. */
const WORD_CUT_SHARE = 0.15;

/**
 * Where a window cut at `end` of `pageText` ends instead: right after the last whitespace in the
 * window's final 15 % (within this page), when there is one; else at `end`.
 */
function afterLastSpace(pageText: string, start: number, end: number, maxChars: number): number {
  const floor = Math.max(start, end - Math.floor(WORD_CUT_SHARE * maxChars));
  for (let i = end; i > floor; i--) {
    if (/\s/.test(pageText[i - 1]!)) return i;
  }
  return end;
}

function assertCount(name: string, value: number, min: number): void {
  if (!Number.isInteger(value) || value < min) {
    throw new RangeError(`${name} must be an integer >= ${min}, got ${value}.`);
  }
}

/**
 * Reads from `cursor` up to `maxChars` characters, touching at most `maxPages` pages.
 *
 * - A window that would end inside a word ends after the last space or line break in its final 15 %
 *   when there is one (on the page it ends on), so words are not cut in two.
 * - A window that would end inside a surrogate pair ends before it; only when that leaves nothing
 *   (maxChars 1 and the pair comes first) does the window hold the whole pair, one code unit over.
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
    let end = Math.min(pageText.length, start + Math.max(room, 0));
    if (splitsPair(pageText, end)) end = end - 1 > start || text.length > 0 ? end - 1 : end + 1;
    if (end < pageText.length) end = afterLastSpace(pageText, start, end, limits.maxChars);
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
 * True when everything from the start of the document to the end of `window` is whitespace: the PDF
 * has no text layer (a scan), over the whole document when `hasMore` is false, else so far. The tool
 * then says "No extractable text (scanned PDF?)" instead of returning blank text.
 */
export function lacksTextLayer(window: PdfWindow): boolean {
  return window.startPage === 0 && window.startOffset === 0 && window.text.trim() === "";
}
