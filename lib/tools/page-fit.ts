import { renderObservation, type ToolOutcome, toolOk } from "./outcome";
import type { SourcePages } from "./page-info";

/**
 * Paged tools size the whole result (body + footer) to the limit before it leaves the tool. The
 * footer's length depends on the token, which depends on where the page ends, so the page is
 * built, measured as the model will read it, and rebuilt smaller until it fits.
 */

export interface PageDraft {
  /** Text before the body proper (e.g. a file header); repeated on every page, not part of the text. */
  header?: string;
  body: string;
  /** The token for what follows, or null at the end. */
  nextToken: string | null;
  /** pdf_to_text: the PDF pages the body comes from (named in the footer only when more follows). */
  sourcePages?: SourcePages;
}

export class PageDoesNotFitError extends Error {
  constructor(limit: number) {
    super(`Could not fit a page and its continuation footer into ${limit} characters.`);
    this.name = "PageDoesNotFitError";
  }
}

export async function fitPage(
  build: (bodyBudget: number) => PageDraft | Promise<PageDraft>,
  { limit, maxChars }: { limit: number; maxChars: number },
): Promise<ToolOutcome> {
  let budget = Math.max(1, Math.min(maxChars, limit));
  for (let attempt = 0; attempt < 8; attempt++) {
    const draft = await build(budget);
    const output = (draft.header ?? "") + draft.body;
    const outcome = draft.nextToken
      ? toolOk(output, { nextToken: draft.nextToken, ...(draft.sourcePages ? { sourcePages: draft.sourcePages } : {}) })
      : toolOk(output);
    const length = renderObservation(outcome).length;
    if (length <= limit) return outcome;
    const next = budget - (length - limit);
    if (next < 1 || next >= budget) break;
    budget = next;
  }
  throw new PageDoesNotFitError(limit);
}

/** A page may end this far (a share of its length) before its limit to end between words. */
const BREAK_ZONE = 0.15;
/** How far around a cut graphemes are looked for: longer than any real grapheme cluster. */
const GRAPHEME_REACH = 64;
const graphemes = new Intl.Segmenter(undefined, { granularity: "grapheme" });

const isLineBreak = (code: number) => code === 0x0a;
const isSpace = (code: number) => code === 0x20 || code === 0x09 || code === 0x3000;
/** Japanese and Chinese full stops and commas, after which a spaceless sentence may end a page. */
const isCjkPause = (code: number) => code === 0x3001 || code === 0x3002 || code === 0xff0c || code === 0xff0e;

/** Just after the last character in [from, to) that `test` accepts, or -1. */
function afterLast(text: string, from: number, to: number, test: (code: number) => boolean): number {
  for (let index = to - 1; index >= from; index--) if (test(text.charCodeAt(index))) return index + 1;
  return -1;
}

/** The last grapheme boundary in (start, limit], or -1 when the first grapheme reaches past `limit`. */
function graphemeBoundary(text: string, start: number, limit: number): number {
  const from = Math.max(start, limit - GRAPHEME_REACH);
  let boundary = -1;
  for (const { index } of graphemes.segment(text.slice(from, Math.min(text.length, limit + GRAPHEME_REACH)))) {
    if (from + index > limit) break;
    if (from + index > start) boundary = from + index;
  }
  return boundary;
}

/**
 * Where a page starting at `start` with room for `length` code units ends. The last page takes the
 * rest. Otherwise it ends after the last line break in its final 15 %, else the last space, else (in
 * spaceless Japanese or Chinese) the last 。or 、, else at the limit — moved back to a grapheme
 * boundary, or when the first grapheme alone is longer than the page, to a code point boundary (a
 * surrogate pair is never split: a page of one code unit then holds the pair). The text of all pages
 * together is the whole text, whatever the lengths.
 */
export function pageEnd(text: string, start: number, length: number): number {
  const limit = Math.min(text.length, start + Math.max(1, length));
  if (limit >= text.length) return text.length;
  const zone = limit - Math.floor((limit - start) * BREAK_ZONE);
  for (const test of [isLineBreak, isSpace, isCjkPause]) {
    const end = afterLast(text, zone, limit, test);
    if (end > start) return end;
  }
  const boundary = graphemeBoundary(text, start, limit);
  if (boundary > start) return boundary;
  const high = text.charCodeAt(limit - 1);
  const splitsPair = high >= 0xd800 && high <= 0xdbff;
  if (!splitsPair) return limit;
  return limit - 1 > start ? limit - 1 : limit + 1;
}

/** The page of `text` from `start` with room for `length` code units (see `pageEnd`). */
export function sliceText(text: string, start: number, length: number): string {
  return text.slice(start, pageEnd(text, start, length));
}
