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

/** `text.slice(start, start + length)` that never splits a UTF-16 surrogate pair. */
export function sliceText(text: string, start: number, length: number): string {
  let end = Math.min(text.length, start + length);
  const last = text.charCodeAt(end - 1);
  if (end < text.length && end - 1 > start && last >= 0xd800 && last <= 0xdbff) end -= 1;
  return text.slice(start, end);
}
