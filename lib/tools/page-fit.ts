import { renderObservation, type ToolOutcome, toolError, toolOk } from "./outcome";
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

/**
 * Builds the page with room for `maxChars` characters of body and, while page and footer are over
 * `limit`, builds it again with room for the body it got less the overshoot. The room shrinks below
 * the body the last try took, so a page break that stays put (a line break well before the budget)
 * cannot stall it, and it ends: with a page that fits, or — only when the header and footer leave no
 * room for a single character — with a retryable failure naming the limit to raise.
 */
export async function fitPage(
  build: (bodyBudget: number) => PageDraft | Promise<PageDraft>,
  { limit, maxChars }: { limit: number; maxChars: number },
): Promise<ToolOutcome> {
  let budget = Math.max(1, Math.min(maxChars, limit));
  for (;;) {
    const draft = await build(budget);
    const output = (draft.header ?? "") + draft.body;
    const paged = draft.nextToken
      ? toolOk(output, { nextToken: draft.nextToken, ...(draft.sourcePages ? { sourcePages: draft.sourcePages } : {}) })
      : toolOk(output);
    const outcome = paged.ok && draft.sourcePages ? { ...paged, pages: draft.sourcePages } : paged;
    const length = renderObservation(outcome).length;
    if (length <= limit) return outcome;
    const next = Math.min(budget, draft.body.length) - (length - limit);
    if (next < 1) return footerDoesNotFit(length - draft.body.length, limit);
    budget = next;
  }
}

/**
 * Nothing of the page fitted: its header and footer alone take `frame` of the `limit` characters
 * (no argument helps: the limit must be raised), or its builder did not shrink the text.
 */
function footerDoesNotFit(frame: number, limit: number): ToolOutcome {
  const message =
    frame >= limit
      ? `This page's header and continuation footer take ${frame} characters and leave no room for its text within the ${limit}-character tool result limit. Ask an administrator to raise MAX_TOOL_RESULT_CHARS above ${frame}, then retry the same call.`
      : `This page's text could not be fitted with its header and footer into the ${limit}-character tool result limit. Retry the same call with a smaller max_chars.`;
  return toolError("result_too_large", message, { retryable: true });
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
