import "server-only";
import type { Db } from "@/lib/db/client";
import type { OwnerId } from "@/lib/db/conversations";
import { type LibraryScope, searchLibrary, unindexedInScope } from "@/lib/db/library";
import type { LibraryMatches, LibrarySearch, ToolLimits } from "@/lib/tools/services";
import { indexFiles } from "./indexer";
import { parseQuery } from "./query";

/**
 * The library search the tools use: files of the scope not indexed yet (stored a moment ago, or
 * left by a failed start) are indexed first, so a search never misses a file it may read.
 */
export function createLibrarySearch(db: Db, limits: ToolLimits): LibrarySearch {
  return {
    search: (conversationId, query, page) => searchScope(db, { conversationId }, query, page, limits),
  };
}

/** The sidebar's search inside files: every file of the owner, ranked as the tool ranks them. */
export function searchOwnersFiles(
  db: Db,
  { ownerId, query, limit }: { ownerId: OwnerId; query: string; limit: number },
  limits: ToolLimits,
): Promise<LibraryMatches> {
  return searchScope(db, { ownerId }, query, { limit, offset: 0 }, limits);
}

async function searchScope(
  db: Db,
  scope: LibraryScope,
  query: string,
  page: { limit: number; offset: number },
  limits: ToolLimits,
): Promise<LibraryMatches> {
  const terms = parseQuery(query);
  if (terms.length === 0) return { hits: [], terms: [], limited: false };
  await indexFiles(db, await unindexedInScope(db, scope), limits);
  const { hits, limited } = await searchLibrary(db, { scope, terms, ...page });
  return { hits, terms: terms.map((term) => term.text), limited };
}
