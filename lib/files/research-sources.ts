import "server-only";
import type { Db } from "@/lib/db/client";
import { conversationOwner, holdsFileFrom } from "@/lib/db/files";
import type { StoredSource } from "@/lib/protocol/sources";
import { insertFileInQuota } from "./file-store";
import type { FileLimits, QuotaRefusal } from "./quota";
import { safeFilename } from "./sniff";

/** How many sources were stored; a quota that refused, and how many that would have been stored were not. */
export interface KeptSources {
  kept: number;
  refused: { quota: QuotaRefusal["quota"]; notKept: number } | null;
}

/**
 * A research run's web sources kept in the library (docs/architecture.md, "The library index"):
 * each http(s) source's text, as the run read it, becomes a text file of the conversation (a
 * fetched file, with its URL), stored within the owner's quotas and indexed like any stored file,
 * so later searches find it and `attachment:<id>` reads it whole. A source the conversation already
 * holds a file from (search_and_fetch kept it, or an earlier run) is not stored again, nor is one of
 * the conversation's own files. A quota that refuses ends the keeping: which quota, and how many of
 * the sources that would have been stored were not, are returned.
 */
export async function keepResearchSources(
  db: Db,
  { conversationId, sources, limits }: { conversationId: string; sources: StoredSource[]; limits: FileLimits },
): Promise<KeptSources> {
  const ownerId = await conversationOwner(db, conversationId);
  let kept = 0;
  let refused: KeptSources["refused"] = null;
  for (const source of sources) {
    if (!/^https?:\/\//i.test(source.url) || !source.text.trim()) continue;
    if (await holdsFileFrom(db, { conversationId, sourceUrl: source.url })) continue;
    if (refused) {
      refused.notKept++;
      continue;
    }
    const stored = await insertFileInQuota(db, {
      file: {
        conversationId,
        origin: "fetch",
        filename: safeFilename(source.title || new URL(source.url).hostname, "txt"),
        mime: "text/plain",
        bytes: Buffer.from(source.text),
        pageCount: null,
        sourceUrl: source.url,
      },
      ownerId,
      limits,
    });
    if ("refused" in stored) refused = { quota: stored.refused.quota, notKept: 1 };
    else kept++;
  }
  return { kept, refused };
}
