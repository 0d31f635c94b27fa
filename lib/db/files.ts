import "server-only";
import { createHash } from "node:crypto";
import { and, count, desc, eq, inArray, isNull, or, type SQL, sum } from "drizzle-orm";
import { AppError } from "@/lib/errors";
import type { StoredFileInfo } from "@/lib/tools/services";
import type { Db } from "./client";
import { getConversation, type OwnerId, ownedBy } from "./conversations";
import { lockedForUpdate } from "./portable-sql";
import { conversations, files, projects, type StoredFile, users } from "./schema";

/**
 * The files table: a conversation's uploads and the files its tools fetched, a project's files,
 * bytes included, and what they take of the quotas (the quota rules are lib/files/quota.ts, the
 * tools' file store lib/files/file-store.ts).
 */

/** Whose a file is: one conversation's, or one project's (every conversation of the project reads it). */
export type FileHolder = { conversationId: string; projectId?: never } | { projectId: string; conversationId?: never };

export function toInfo(row: Pick<StoredFile, keyof StoredFileInfo>): StoredFileInfo {
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

export type NewFile = FileHolder & {
  origin: StoredFile["origin"];
  filename: string;
  mime: string;
  bytes: Buffer;
  pageCount: number | null;
  sourceUrl: string | null;
};

/** Stores the file as it is, outside any quota: for tests and tools that seed a database. */
export async function insertFile(db: Db, values: NewFile): Promise<StoredFileInfo> {
  const row: StoredFile = {
    id: crypto.randomUUID(),
    conversationId: values.conversationId ?? null,
    projectId: values.projectId ?? null,
    origin: values.origin,
    filename: values.filename,
    mime: values.mime,
    size: values.bytes.length,
    sha256: sha256(values.bytes),
    pageCount: values.pageCount,
    sourceUrl: values.sourceUrl,
    bytes: values.bytes,
    indexedAt: null,
    indexClaimedBy: null,
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

const heldBy = (holder: FileHolder) =>
  holder.projectId !== undefined
    ? eq(files.projectId, holder.projectId)
    : eq(files.conversationId, holder.conversationId);

/** A project's files, newest first, without their bytes; whether each is in the library index yet. */
export async function listProjectFiles(
  db: Db,
  projectId: string,
): Promise<(StoredFileInfo & { createdAt: number; indexed: boolean })[]> {
  const rows = await db
    .select({
      id: files.id,
      filename: files.filename,
      mime: files.mime,
      size: files.size,
      sha256: files.sha256,
      pageCount: files.pageCount,
      sourceUrl: files.sourceUrl,
      createdAt: files.createdAt,
      indexedAt: files.indexedAt,
    })
    .from(files)
    .where(eq(files.projectId, projectId))
    .orderBy(desc(files.createdAt), desc(files.id));
  return rows.map(({ createdAt, indexedAt, ...row }) => ({ ...toInfo(row), createdAt, indexed: indexedAt !== null }));
}

/** A project's file, or undefined — whether it is missing or another project's. */
export async function findProjectFile(
  db: Db,
  { projectId, fileId }: { projectId: string; fileId: string },
): Promise<StoredFile | undefined> {
  const [row] = await db
    .select()
    .from(files)
    .where(and(eq(files.id, fileId), heldBy({ projectId })))
    .limit(1);
  return row;
}

/** Deletes a project's file, its library passages with it; false when the project holds no such file. */
export async function deleteProjectFile(
  db: Db,
  { projectId, fileId }: { projectId: string; fileId: string },
): Promise<boolean> {
  const deleted = await db
    .delete(files)
    .where(and(eq(files.id, fileId), heldBy({ projectId })))
    .returning({ id: files.id });
  return deleted.length > 0;
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

/** Whether the conversation holds a file fetched from `sourceUrl`, whatever its bytes. */
export async function holdsFileFrom(
  db: Db,
  { conversationId, sourceUrl }: { conversationId: string; sourceUrl: string },
): Promise<boolean> {
  const [row] = await db
    .select({ id: files.id })
    .from(files)
    .where(and(eq(files.conversationId, conversationId), eq(files.sourceUrl, sourceUrl)))
    .limit(1);
  return Boolean(row);
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

/** The owner's files: those of their conversations and of their projects. */
export function ownersFiles(db: Db, ownerId: OwnerId): SQL | undefined {
  const ownProjects = db
    .select({ id: projects.id })
    .from(projects)
    .where(ownerId === null ? isNull(projects.userId) : eq(projects.userId, ownerId));
  return or(
    inArray(files.conversationId, db.select({ id: conversations.id }).from(conversations).where(ownedBy(ownerId))),
    inArray(files.projectId, ownProjects),
  );
}

/** Bytes the owner's files take, in every conversation and project. */
export async function storageUsed(db: Db, ownerId: OwnerId): Promise<number> {
  const [row] = await db
    .select({ bytes: sum(files.size) })
    .from(files)
    .where(ownersFiles(db, ownerId));
  return Number(row?.bytes ?? 0);
}

/** How many files the conversation or project holds itself (a conversation's project's files not counted). */
export async function heldFileCount(db: Db, holder: FileHolder): Promise<number> {
  const [row] = await db.select({ files: count() }).from(files).where(heldBy(holder));
  return Number(row?.files ?? 0);
}

/** Inside a transaction storing files: holds the owner's account row until it ends, so quotas are counted one after the other. */
export async function holdOwnerRow(tx: Db, userId: string): Promise<void> {
  await lockedForUpdate(tx.select({ id: users.id }).from(users).where(eq(users.id, userId)));
}
