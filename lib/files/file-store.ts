import "server-only";
import type { Db } from "@/lib/db/client";
import type { OwnerId } from "@/lib/db/conversations";
import { conversationOwner, findFetchedFile, insertFile, type NewFile, sha256, toInfo } from "@/lib/db/files";
import { findFileInScope } from "@/lib/db/library";
import { getConfig } from "@/lib/env-config";
import { indexFiles } from "@/lib/library/indexer";
import type { FileStore, StoredFileInfo } from "@/lib/tools/services";
import { type FileLimits, type QuotaRefusal, quotaRefusal } from "./quota";

/** Storing a conversation's or project's files within the quotas, and the tools' file store over them (lib/db/files.ts). */

/** Stores the file when it fits the owner's quotas (checked and stored in one transaction), or says which it breaks. */
export async function insertFileInQuota(
  db: Db,
  { file, ownerId, limits }: { file: NewFile; ownerId: OwnerId; limits: FileLimits },
): Promise<StoredFileInfo | { refused: QuotaRefusal }> {
  const stored = await db.transaction(async (tx) => {
    const refused = await quotaRefusal(tx, {
      ownerId,
      conversationId: file.conversationId,
      projectId: file.projectId,
      adding: { files: 1, bytes: file.bytes.length },
      limits,
    });
    return refused ? { refused } : insertFile(tx, file);
  });
  // Into the library index now, in the background: a search waits for it if it comes first.
  if (!("refused" in stored)) void indexFiles(db, [stored.id], getConfig());
  return stored;
}

export function createFileStore(db: Db, limits: FileLimits): FileStore {
  return {
    async get(conversationId, fileId) {
      const row = await findFileInScope(db, { conversationId, fileId });
      return row ? { ...toInfo(row), bytes: row.bytes } : null;
    },
    async saveFetched(conversationId, file) {
      const existing = await findFetchedFile(db, {
        conversationId,
        sha256: sha256(file.bytes),
        sourceUrl: file.sourceUrl,
      });
      if (existing) return toInfo(existing);
      const ownerId = await conversationOwner(db, conversationId);
      const stored = await insertFileInQuota(db, {
        file: { conversationId, origin: "fetch", ...file },
        ownerId,
        limits,
      });
      return "refused" in stored ? { refused: stored.refused } : stored;
    },
  };
}
