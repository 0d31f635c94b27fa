import { expect } from "vitest";
import { renderObservation, type ToolOutcome } from "@/lib/tools/outcome";
import { type ParsedPage, parsePageInfo } from "@/lib/tools/page-info";

/**
 * Follows next_token from the first page to the last, checking that every result is a page within
 * the size limit whose observation text reads back as the outcome's data, and returns the pages as
 * the model read them. Bounded, so a token that never ends fails the test instead of hanging.
 */
export async function followPages(
  call: (args: Record<string, unknown>) => Promise<ToolOutcome>,
  firstArgs: Record<string, unknown>,
  { limit, maxPages = 2000 }: { limit: number; maxPages?: number },
): Promise<ParsedPage[]> {
  const pages = [];
  let args: Record<string, unknown> = firstArgs;
  for (let i = 0; i < maxPages; i++) {
    const outcome = await call(args);
    if (!outcome.ok) throw new Error(`page ${i + 1} failed: ${outcome.error.message}`);
    const observation = renderObservation(outcome);
    expect(observation.length).toBeLessThanOrEqual(limit);
    const page = parsePageInfo(observation);
    expect(page).toEqual({ body: outcome.output, pageInfo: outcome.paging ?? null });
    pages.push(page);
    if (!page.pageInfo) return pages;
    args = {
      continue_from: page.pageInfo.nextToken,
      ...(firstArgs.max_chars ? { max_chars: firstArgs.max_chars } : {}),
    };
  }
  throw new Error(`still paging after ${maxPages} pages`);
}
