import { isPagedResult } from "./pagination";

/**
 * SPEC §11 truncation policy. Paged results are sized by their tool; one over the limit is a bug
 * that would skip text, so it is replaced by a retryable error rather than cut. Other results are
 * cut at a paragraph or word boundary with a visible marker.
 */

export const TRUNCATION_MARKER = "…[tool result truncated]";

export function truncateToolResult(result: string, { maxChars, paged }: { maxChars: number; paged: boolean }): string {
  if (result.length <= maxChars) return result;
  if (paged || isPagedResult(result)) {
    return JSON.stringify({
      error: `The tool result exceeded ${maxChars} characters and was withheld so no text is skipped. Retry the same call with a smaller max_chars.`,
      retryable: true,
    });
  }
  const room = maxChars - TRUNCATION_MARKER.length - 1;
  const head = result.slice(0, Math.max(0, room));
  const paragraph = head.lastIndexOf("\n\n");
  const line = head.lastIndexOf("\n");
  const word = head.search(/\s\S*$/);
  // Prefer the largest natural boundary that keeps at least half of the room.
  const cut = [paragraph, line, word].find((index) => index >= room / 2) ?? room;
  return `${head.slice(0, cut).trimEnd()}\n${TRUNCATION_MARKER}`;
}
