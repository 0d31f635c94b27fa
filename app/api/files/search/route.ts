import { ownerOf } from "@/lib/auth/viewer";
import { getDb } from "@/lib/db/client";
import { getConfig } from "@/lib/env-config";
import { apiRoute } from "@/lib/http/api-route";
import { parseWith } from "@/lib/http/responses";
import { searchOwnersFiles } from "@/lib/library/library-search";
import { findMatch, snippetAround } from "@/lib/text/search-snippet";
import { fileSearchQuery } from "./schema";

export const dynamic = "force-dynamic";

/**
 * The sidebar's search inside files: the viewer's passages that hold every word, best first, each
 * with its file, whose it is (a conversation's or a project's), its page or position, its text,
 * where the first word is in it (`match`), and a one-line excerpt around that (`snippet`); `limited`
 * when more passages match than a search ranks.
 */
export const GET = apiRoute(async (request: Request, _context: unknown, viewer) => {
  const query = parseWith(fileSearchQuery, Object.fromEntries(new URL(request.url).searchParams));
  const { hits, terms, limited } = await searchOwnersFiles(
    await getDb(),
    { ownerId: ownerOf(viewer), query: query.q, limit: query.limit },
    getConfig(),
  );
  const first = terms[0] ?? query.q;
  // A phrase found with punctuation between its words ("red fox" in "red, fox") is not in the
  // passage as typed: its first word is what is marked then.
  const marked = (text: string) => (findMatch(text, first) ? first : (first.split(" ")[0] ?? first));
  return Response.json(
    {
      hits: hits.map(({ score: _score, ...hit }) => ({
        ...hit,
        match: findMatch(hit.text, marked(hit.text)),
        snippet: snippetAround(hit.text, marked(hit.text)),
      })),
      terms,
      limited,
    },
    { headers: { "Cache-Control": "private, no-store" } },
  );
});
