import type { StreamPart } from "@/lib/llm/types";
import { partialTokenStart, removeSpecialTokens } from "./markup";
import { withoutThinking } from "./registry";
import { withThinkingSplit } from "./thinking-markup";

/**
 * Text on its way to the screen, streamed: special tokens and call tags removed, a tail that may
 * be the start of one held back until the next delta (or the end) tells.
 */
export class ShownTextFilter {
  private held = "";

  push(delta: string): string {
    const text = this.held + delta;
    const partial = partialTokenStart(text);
    const ready = partial === -1 ? text : text.slice(0, partial);
    this.held = partial === -1 ? "" : text.slice(partial);
    return removeSpecialTokens(ready);
  }

  end(): string {
    const rest = removeSpecialTokens(this.held);
    this.held = "";
    return rest;
  }
}

/** An answer as the user may see it: no thinking blocks, no special tokens or call tags. */
export function shownAnswer(content: string): string {
  const shown = removeSpecialTokens(withoutThinking(content));
  return shown === content ? content : shown.trim();
}

/** A synthesis stream with thinking markup moved to reasoning and markup removed from its text. */
export async function* shownStream(parts: AsyncIterable<StreamPart>): AsyncIterable<StreamPart> {
  const filter = new ShownTextFilter();
  for await (const part of withThinkingSplit(parts)) {
    if (part.type === "text") {
      const text = filter.push(part.text);
      if (text) yield { type: "text", text };
      continue;
    }
    if (part.type === "finish") {
      const rest = filter.end();
      if (rest) yield { type: "text", text: rest };
    }
    yield part as StreamPart;
  }
  const rest = filter.end();
  if (rest) yield { type: "text", text: rest };
}
