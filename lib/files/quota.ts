import "server-only";
import type { Db } from "@/lib/db/client";
import { getConversation, holdConversation, type OwnerId } from "@/lib/db/conversations";
import { conversationFileCount, holdOwnerRow, storageUsed } from "@/lib/db/files";
import type { Config } from "@/lib/env-config";
import { AppError } from "@/lib/errors";
import type { FileQuotaRefusal } from "@/lib/tools/services";

/**
 * File quotas: files one conversation may hold (`MAX_FILES_PER_CONVERSATION`) and bytes one user's
 * files may take in all (`MAX_STORAGE_MB_PER_USER`), uploads, fetched and imported files alike.
 */

export interface FileLimits {
  maxFilesPerConversation: number;
  maxStorageBytes: number;
}

export const fileLimits = (config: Pick<Config, "MAX_FILES_PER_CONVERSATION" | "MAX_STORAGE_MB_PER_USER">) => ({
  maxFilesPerConversation: config.MAX_FILES_PER_CONVERSATION,
  maxStorageBytes: config.MAX_STORAGE_MB_PER_USER * 1024 * 1024,
});

/** Which quota a file would break, and its numbers (the tools' type: lib/tools is framework-free). */
export type QuotaRefusal = FileQuotaRefusal;

/**
 * Whether `adding` fits the quotas, or which it would break. Inside the transaction that then
 * stores the files, it first holds the owner's account row (and the conversation's, which also
 * checks it is the owner's), so two uploads at once are counted one after the other (PostgreSQL;
 * SQLite runs one write transaction at a time). `conversationId`: an existing conversation the
 * files go to; an imported one is new, its file count checked by the caller.
 */
export async function quotaRefusal(
  tx: Db,
  {
    ownerId,
    conversationId,
    adding,
    limits,
    lock = true,
  }: {
    ownerId: OwnerId;
    conversationId?: string;
    adding: { files: number; bytes: number };
    limits: FileLimits;
    /** false: a quick look outside a transaction, before the checks of an upload run (no rows held). */
    lock?: boolean;
  },
): Promise<QuotaRefusal | null> {
  if (lock && ownerId !== null) {
    await holdOwnerRow(tx, ownerId);
  }
  if (conversationId !== undefined) {
    if (lock) await holdConversation(tx, { id: conversationId, ownerId });
    const held = await conversationFileCount(tx, conversationId);
    if (held + adding.files > limits.maxFilesPerConversation) {
      return { quota: "conversation_files", limit: limits.maxFilesPerConversation };
    }
  } else if (adding.files > limits.maxFilesPerConversation) {
    return { quota: "conversation_files", limit: limits.maxFilesPerConversation };
  }
  const usedBytes = await storageUsed(tx, ownerId);
  if (usedBytes + adding.bytes > limits.maxStorageBytes) {
    return { quota: "user_storage", limitBytes: limits.maxStorageBytes, usedBytes };
  }
  return null;
}

/** The refusal as the error a request gets (409 for the conversation's count, 413 for the user's storage). */
export function quotaError(refusal: QuotaRefusal): AppError {
  if (refusal.quota === "conversation_files") {
    return new AppError(
      "conflict:conversation_files",
      `This conversation already holds ${refusal.limit} files, the most one may hold (MAX_FILES_PER_CONVERSATION). Start a new conversation for more.`,
      { details: { max: refusal.limit } },
    );
  }
  const limitMb = Math.round(refusal.limitBytes / 1024 / 1024);
  return new AppError(
    "payload_too_large:storage_quota",
    `Your files would take more than the ${limitMb} MB you may store (MAX_STORAGE_MB_PER_USER). Delete conversations with files you no longer need.`,
    { details: { limitBytes: refusal.limitBytes, usedBytes: refusal.usedBytes } },
  );
}

/** `GET /api/files/usage`: the owner's storage, and one conversation's file count when named. */
export interface FileUsage {
  storage: { usedBytes: number; limitBytes: number };
  conversation?: { files: number; limit: number };
}

/** What the owner's files use of the quotas, and of one conversation's when named. */
export async function fileUsage(
  db: Db,
  { ownerId, conversationId, limits }: { ownerId: OwnerId; conversationId?: string; limits: FileLimits },
): Promise<FileUsage> {
  const usedBytes = await storageUsed(db, ownerId);
  const storage = { usedBytes, limitBytes: limits.maxStorageBytes };
  if (conversationId === undefined) return { storage };
  await getConversation(db, { id: conversationId, ownerId });
  return {
    storage,
    conversation: { files: await conversationFileCount(db, conversationId), limit: limits.maxFilesPerConversation },
  };
}
