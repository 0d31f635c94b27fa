import { z } from "zod";
import { type ToolOutcome, toolError, toolOk } from "../outcome";
import { defineTool } from "../registry";
import type { MemoryWriter } from "../services";

/**
 * `remember` (docs/tools.md, "Remembering the user's preferences"): keeps a lasting fact or
 * preference the user stated, for their later conversations. Saved at once, or, when the user
 * asks first, proposed: saved only once they confirm under the answer. Offered only where memory
 * is on and the chat is not private.
 */

export const MAX_MEMORY_CHARS = 1000;

export function createRemember(memory: MemoryWriter) {
  return defineTool({
    name: "remember",
    description:
      'Remember a lasting preference or fact the user stated about themselves or their work, for later conversations (e.g. "works in metric units", "the team uses PostgreSQL 16"). Call it only when the user states something that will still hold later, one fact per call, in a short sentence written in the user\'s language. Never for passing details of this question, and never for secrets.',
    paged: false,
    schema: z.object({
      text: z.string().describe("the fact or preference, as one short sentence"),
    }),
    async execute(args): Promise<ToolOutcome> {
      const text = args.text.replace(/\s+/g, " ").trim();
      if (!text) return toolError("invalid_input", "text is empty: give the fact or preference to remember.");
      if (text.length > MAX_MEMORY_CHARS) {
        return toolError(
          "invalid_input",
          `text is longer than ${MAX_MEMORY_CHARS} characters: say it in a short sentence.`,
        );
      }
      const kept = await memory.remember(text);
      switch (kept.status) {
        case "known":
          return toolOk(`Already remembered: ${text}`);
        case "saved":
          return { ok: true, output: `Saved to the user's memory: ${text}`, memory: kept.note };
        case "proposed":
          return {
            ok: true,
            output: `Proposed to the user for their memory (saved only if they confirm): ${text}`,
            memory: kept.note,
          };
      }
    },
  });
}
