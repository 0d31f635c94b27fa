import "server-only";
import type { Db } from "@/lib/db/client";
import { searchLibrary, unindexedInScope } from "@/lib/db/library";
import type { LibrarySearch, ToolLimits } from "@/lib/tools/services";
import { indexFiles } from "./indexer";
import { parseQuery } from "./query";

/**
 * The library search the tools use: files of the scope not indexed yet (stored a moment ago, or
 * left by a failed start) are indexed first, so a search never misses a file it may read.
 */
export function createLibrarySearch(db: Db, limits: ToolLimits): LibrarySearch {
  return {
    async search(conversationId, query, page) {
      const terms = parseQuery(query);
      if (terms.length === 0) return { hits: [], terms: [] };
      const scope = { conversationId };
      await indexFiles(db, await unindexedInScope(db, scope), limits);
      const hits = await searchLibrary(db, { scope, terms, ...page });
      return { hits, terms: terms.map((term) => term.text) };
    },
  };
}
