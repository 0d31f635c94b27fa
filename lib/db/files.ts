import "server-only";
import { createHash } from "node:crypto";
import { and, count, eq, sum } from "drizzle-orm";
import { AppError } from "@/lib/errors";
import type { StoredFileInfo } from "@/lib/tools/services";
import type { Db } from "./client";
import { getConversation, type OwnerId, ownedBy } from "./conversations";
import { lockedForUpdate } from "./portable-sql";
import { conversations, files, type StoredFile, users } from "./schema";

/**
 * The files table: a conversation's uploads and the files its tools fetched, bytes included, and
 * what they take of the quotas (the quota rules are lib/files/quota.ts, the tools' file store
 * lib/files/file-store.ts).
 */

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

export interface NewFile {
  conversationId: string;
  origin: StoredFile["origin"];
  filename: string;
  mime: string;
  bytes: Buffer;
  pageCount: number | null;
  sourceUrl: string | null;
}

/** Stores the file as it is, outside any quota: for tests and tools that seed a database. */
export async function insertFile(db: Db, values: NewFile): Promise<StoredFileInfo> {
  const row: StoredFile = {
    id: crypto.randomUUID(),
    conversationId: values.conversationId,
    projectId: null,
    origin: values.origin,
    filename: values.filename,
    mime: values.mime,
    size: values.bytes.length,
    sha256: sha256(values.bytes),
    pageCount: values.pageCount,
    sourceUrl: values.sourceUrl,
    bytes: values.bytes,
    indexedAt: null,
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

/** A file the conversation already fetched from `sourceUrl` with these bytes. */
export async function findFetchedFile(
  db: Db,
  { conversationId, sha256, sourceUrl }: { conversationId: string; sha256: string; sourceUrl: string },
): Promise<StoredFile | undefined> {
  const [row] = await db
    .select()
    .from(files)
    .where(and(eq(files.conversationId, conversationId), eq(files.sha256, sha256), eq(files.sourceUrl, sourceUrl)))
    .limit(1);
  return row;
}

/** The owner of a conversation (null: single-user mode), whoever asks; 404 when it is gone. */
export async function conversationOwner(db: Db, conversationId: string): Promise<OwnerId> {
  const [owner] = await db
    .select({ userId: conversations.userId })
    .from(conversations)
    .where(eq(conversations.id, conversationId))
    .limit(1);
  if (!owner) throw new AppError("not_found:conversation", `Conversation ${conversationId} not found.`);
  return owner.userId;
}

/** Bytes the owner's files take, in every conversation. */
export async function storageUsed(db: Db, ownerId: OwnerId): Promise<number> {
  const [row] = await db
    .select({ bytes: sum(files.size) })
    .from(files)
    .innerJoin(conversations, eq(conversations.id, files.conversationId))
    .where(ownedBy(ownerId));
  return Number(row?.bytes ?? 0);
}

export async function conversationFileCount(db: Db, conversationId: string): Promise<number> {
  const [row] = await db.select({ files: count() }).from(files).where(eq(files.conversationId, conversationId));
  return Number(row?.files ?? 0);
}

/** Inside a transaction storing files: holds the owner's account row until it ends, so quotas are counted one after the other. */
export async function holdOwnerRow(tx: Db, userId: string): Promise<void> {
  await lockedForUpdate(tx.select({ id: users.id }).from(users).where(eq(users.id, userId)));
}
