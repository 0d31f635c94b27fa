import { z } from "zod";
import { foldForIndex, RANKED_PASSAGES } from "@/lib/library/query";
import { ATTACHMENT_PREFIX } from "../attachment-reader";
import { type ToolOutcome, toolError, toolOk } from "../outcome";
import { makeToken } from "../pagination";
import { defineTool } from "../registry";
import type { LibraryHit, ToolServices } from "../services";
import { limitOr, optionalCount } from "./args";

/**
 * `search_files` (docs/tools.md): full-text search over the files in the conversation's scope — its
 * own, its project's, or all of the user's when the chat widens it — returning ranked passages with
 * the file, its page or position, and a `pdf_to_text` continuation token that reads on from there.
 */

const DEFAULT_RESULTS = 5;
const MAX_RESULTS = 20;
const SNIPPET_BEFORE = 120;
const SNIPPET_AFTER = 280;

/** The passage around the first place one of the query's terms occurs (the terms are folded, as the index is). */
function snippet(hit: LibraryHit, terms: string[]): string {
  const folded = foldForIndex(hit.text);
  const found = terms.map((term) => folded.indexOf(term)).find((index) => index >= 0) ?? 0;
  // NFKC may change a text's length slightly (ligatures, "㍿"): close enough to centre an excerpt on.
  const at = Math.min(found, hit.text.length);
  const from = Math.max(0, at - SNIPPET_BEFORE);
  const to = Math.min(hit.text.length, at + SNIPPET_AFTER);
  const text = hit.text.slice(from, to).replace(/\s+/g, " ").trim();
  return `${from > 0 ? "…" : ""}${text}${to < hit.text.length ? "…" : ""}`;
}

export function createSearchFiles(services: ToolServices) {
  return defineTool({
    name: "search_files",
    description:
      'Search the text of the files available in this conversation (uploaded files, its project\'s files, files saved by search_and_fetch). Returns ranked passages with the file, its page or position, and a continue_from token for pdf_to_text that reads the file from there. Use "quoted phrases" for exact wording and word* for prefixes.',
    paged: false,
    schema: z.object({
      query: z.string().describe('words to find; "a phrase" in quotes; word* for words starting with it'),
      limit: optionalCount,
      page: optionalCount,
    }),
    async execute(args, context): Promise<ToolOutcome> {
      const library = services.library;
      if (!library) return toolError("tool_failed", "File search is not available here.");
      const query = args.query.trim();
      if (!query) return toolError("invalid_input", "query is empty: give words to find in the files.");
      const limit = limitOr(args.limit, DEFAULT_RESULTS, MAX_RESULTS);
      const page = limitOr(args.page, 1);
      const { hits, terms, limited } = await library.search(context.conversationId, query, {
        limit: limit + 1,
        offset: (page - 1) * limit,
      });
      if (terms.length === 0) return toolError("invalid_input", "query has no letters or digits to search for.");
      if (hits.length === 0) {
        return toolOk(
          page === 1
            ? `No passage of the files in this conversation contains ${terms.map((term) => `"${term}"`).join(" and ")}.`
            : `No more passages (page ${page}).`,
        );
      }
      const shown = hits.slice(0, limit);
      const lines = shown.map((hit, index) => {
        const ref = `${ATTACHMENT_PREFIX}${hit.fileId}`;
        const where = hit.page !== null ? `page ${hit.page}` : `character ${hit.start}`;
        const token = makeToken(
          hit.page !== null
            ? { tool: "pdf_to_text", attachment: hit.fileId, page_index: hit.page - 1, page_char_offset: 0 }
            : { tool: "pdf_to_text", attachment: hit.fileId, offset: hit.start },
          services.secret,
          services.now?.(),
        );
        return [
          `[${(page - 1) * limit + index + 1}] ${hit.filename} (${ref}, ${where})`,
          `    ${snippet(hit, terms)}`,
          `    Read from here: pdf_to_text with continue_from="${token}"`,
        ].join("\n");
      });
      const more = hits.length > limit ? `\nMore passages match: call search_files again with page=${page + 1}.` : "";
      const narrow = limited
        ? `\nThese words are in more passages than a search ranks: these are the best of the newest ${RANKED_PASSAGES}. Add words or use a "quoted phrase" to find older passages.`
        : "";
      return toolOk(`${lines.join("\n\n")}${more}${narrow}`);
    },
  });
}
