import { renderObservation, type ToolOutcome, toolError } from "./outcome";

/**
 * The truncation policy: what the model reads of an outcome is at most `maxChars`. Paged results
 * are sized by their tool; one over the limit is a bug that would skip text, so it is replaced by a
 * retryable error rather than cut. Other results, and failures' messages, are cut at a paragraph
 * or word boundary with a visible marker.
 */

export const TRUNCATION_MARKER = "…[tool result truncated]";

export function truncateOutcome(
  outcome: ToolOutcome,
  { maxChars, paged }: { maxChars: number; paged: boolean },
): ToolOutcome {
  const length = renderObservation(outcome).length;
  if (length <= maxChars) return outcome;
  if (!outcome.ok) {
    // Only the message is cut; what wraps it (JSON and its escapes) is measured again until it fits.
    const withMessage = (message: string): ToolOutcome => ({ ...outcome, error: { ...outcome.error, message } });
    let room = maxChars - renderObservation(withMessage("")).length;
    for (;;) {
      const cut = withMessage(truncateText(outcome.error.message, room));
      const excess = renderObservation(cut).length - maxChars;
      if (excess <= 0 || room <= 0) return cut;
      room -= excess;
    }
  }
  if (paged || outcome.paging) {
    return toolError(
      "result_too_large",
      `The tool result exceeded ${maxChars} characters and was withheld so no text is skipped. Retry the same call with a smaller max_chars.`,
      { retryable: true },
    );
  }
  return { ...outcome, output: truncateText(outcome.output, maxChars) };
}

/** `text` cut to at most `maxChars` characters, marker included, at the largest natural boundary. */
export function truncateText(text: string, maxChars: number): string {
  if (text.length <= maxChars) return text;
  const room = maxChars - TRUNCATION_MARKER.length - 1;
  const head = text.slice(0, Math.max(0, room));
  const paragraph = head.lastIndexOf("\n\n");
  const line = head.lastIndexOf("\n");
  const word = head.search(/\s\S*$/);
  // Prefer the largest natural boundary that keeps at least half of the room.
  const cut = [paragraph, line, word].find((index) => index >= room / 2) ?? room;
  return `${head.slice(0, cut).trimEnd()}\n${TRUNCATION_MARKER}`;
}
