import { formatPagedResult } from "./pagination";

/**
 * Paged tools size the whole result (body + footer) to the limit before it leaves the tool
 * (SPEC §11). The footer's length depends on the token, which depends on where the page ends, so
 * the page is built, measured, and rebuilt smaller until it fits.
 */

export interface PageDraft {
  /** Text before the body proper (e.g. a file header); repeated on every page, not part of the text. */
  header?: string;
  body: string;
  /** The token for what follows, or null at the end. */
  nextToken: string | null;
  footerLines?: string[];
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
): Promise<string> {
  let budget = Math.max(1, Math.min(maxChars, limit));
  for (let attempt = 0; attempt < 8; attempt++) {
    const draft = await build(budget);
    const result = (draft.header ?? "") + formatPagedResult(draft.body, draft.nextToken, draft.footerLines);
    if (result.length <= limit) return result;
    const next = budget - (result.length - limit);
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
