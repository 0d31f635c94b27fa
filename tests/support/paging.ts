import { expect } from "vitest";
import { parsePagedResult } from "@/lib/tools/pagination";

/**
 * Follows next_token from the first page to the last, checking every result's size, and returns
 * the pages. The loop is bounded so a token that never ends fails the test instead of hanging.
 */
export async function followPages(
  call: (args: Record<string, unknown>) => Promise<string>,
  firstArgs: Record<string, unknown>,
  { limit, maxPages = 2000 }: { limit: number; maxPages?: number },
): Promise<ReturnType<typeof parsePagedResult>[]> {
  const pages = [];
  let args: Record<string, unknown> = firstArgs;
  for (let i = 0; i < maxPages; i++) {
    const result = await call(args);
    expect(result.length).toBeLessThanOrEqual(limit);
    const page = parsePagedResult(result);
    pages.push(page);
    if (!page.nextToken) return pages;
    expect(page.hasMore).toBe(true);
    args = { continue_from: page.nextToken, ...(firstArgs.max_chars ? { max_chars: firstArgs.max_chars } : {}) };
  }
  throw new Error(`still paging after ${maxPages} pages`);
}
