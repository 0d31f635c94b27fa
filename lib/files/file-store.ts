import "server-only";
import { createHash } from "node:crypto";
import { and, eq } from "drizzle-orm";
import type { Db } from "@/lib/db/client";
import { getConversation, type OwnerId } from "@/lib/db/conversations";
import { conversations, files, type StoredFile } from "@/lib/db/schema";
import { AppError } from "@/lib/errors";
import type { FileStore, StoredFileInfo } from "@/lib/tools/services";
import { type FileLimits, type QuotaRefusal, quotaRefusal } from "./quota";

/** The conversation's files in SQLite: uploads and files fetched by tools. */

export function toInfo(row: Omit<StoredFile, "bytes">): StoredFileInfo {
  return {
    id: row.id,
    filename: row.filename,
    mime: row.mime,
    size: row.size,
    sha256: row.sha256,
    pageCount: row.pageCount,
    sourceUrl: row.sourceUrl,
  };
}

export function sha256(bytes: Buffer): string {
  return createHash("sha256").update(bytes).digest("hex");
}

interface NewFile {
  conversationId: string;
  origin: StoredFile["origin"];
  filename: string;
  mime: string;
  bytes: Buffer;
  pageCount: number | null;
  sourceUrl: string | null;
}

/** Stores the file when it fits the owner's quotas (checked and stored in one transaction), or says which it breaks. */
export async function insertFileInQuota(
  db: Db,
  { file, ownerId, limits }: { file: NewFile; ownerId: OwnerId; limits: FileLimits },
): Promise<StoredFileInfo | { refused: QuotaRefusal }> {
  return db.transaction(async (tx) => {
    const refused = await quotaRefusal(tx, {
      ownerId,
      conversationId: file.conversationId,
      adding: { files: 1, bytes: file.bytes.length },
      limits,
    });
    return refused ? { refused } : insertFile(tx, file);
  });
}

/** Stores the file as it is, outside any quota: for tests and tools that seed a database. */
export async function insertFile(db: Db, values: NewFile): Promise<StoredFileInfo> {
  const row: StoredFile = {
    id: crypto.randomUUID(),
    conversationId: values.conversationId,
    origin: values.origin,
    filename: values.filename,
    mime: values.mime,
    size: values.bytes.length,
    sha256: sha256(values.bytes),
    pageCount: values.pageCount,
    sourceUrl: values.sourceUrl,
    bytes: values.bytes,
    createdAt: Date.now(),
  };
  await db.insert(files).values(row);
  return toInfo(row);
}

/** One conversation's file, or undefined — whether it is missing or another conversation's. */
export async function findFile(
  db: Db,
  { conversationId, fileId }: { conversationId: string; fileId: string },
): Promise<StoredFile | undefined> {
  const [row] = await db
    .select()
    .from(files)
    .where(and(eq(files.id, fileId), eq(files.conversationId, conversationId)))
    .limit(1);
  return row;
}

/** A file of a conversation its owner asks for; another user's conversation or an unknown file is a 404. */
export async function findOwnedFile(
  db: Db,
  { conversationId, ownerId, fileId }: { conversationId: string; ownerId: OwnerId; fileId: string },
): Promise<StoredFile> {
  await getConversation(db, { id: conversationId, ownerId });
  const file = await findFile(db, { conversationId, fileId });
  if (!file) throw new AppError("not_found:file", `File ${fileId} not found in this conversation.`);
  return file;
}

export function createFileStore(db: Db, limits: FileLimits): FileStore {
  return {
    async get(conversationId, fileId) {
      const row = await findFile(db, { conversationId, fileId });
      return row ? { ...toInfo(row), bytes: row.bytes } : null;
    },
    async saveFetched(conversationId, file) {
      const hash = sha256(file.bytes);
      const [existing] = await db
        .select()
        .from(files)
        .where(
          and(eq(files.conversationId, conversationId), eq(files.sha256, hash), eq(files.sourceUrl, file.sourceUrl)),
        )
        .limit(1);
      if (existing) return toInfo(existing);
      const [owner] = await db
        .select({ userId: conversations.userId })
        .from(conversations)
        .where(eq(conversations.id, conversationId))
        .limit(1);
      if (!owner) throw new AppError("not_found:conversation", `Conversation ${conversationId} not found.`);
      const stored = await insertFileInQuota(db, {
        file: { conversationId, origin: "fetch", ...file },
        ownerId: owner.userId,
        limits,
      });
      return "refused" in stored ? { refused: stored.refused } : stored;
    },
  };
}
