import "server-only";
import type { Db } from "@/lib/db/client";
import { getConversation, holdConversation, type OwnerId } from "@/lib/db/conversations";
import { heldFileCount, holdOwnerRow, storageUsed } from "@/lib/db/files";
import { getProject, holdProject } from "@/lib/db/projects";
import type { Config } from "@/lib/env-config";
import { AppError } from "@/lib/errors";
import type { FileQuotaRefusal } from "@/lib/tools/services";

/**
 * File quotas: files one conversation may hold (`MAX_FILES_PER_CONVERSATION`), files one project
 * may hold (`MAX_FILES_PER_PROJECT`) and bytes one user's files may take in all, conversations' and
 * projects' (`MAX_STORAGE_MB_PER_USER`), uploads, fetched and imported files alike.
 */

export interface FileLimits {
  maxFilesPerConversation: number;
  maxFilesPerProject: number;
  maxStorageBytes: number;
}

export const fileLimits = (
  config: Pick<Config, "MAX_FILES_PER_CONVERSATION" | "MAX_FILES_PER_PROJECT" | "MAX_STORAGE_MB_PER_USER">,
): FileLimits => ({
  maxFilesPerConversation: config.MAX_FILES_PER_CONVERSATION,
  maxFilesPerProject: config.MAX_FILES_PER_PROJECT,
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
    projectId,
    adding,
    limits,
    lock = true,
  }: {
    ownerId: OwnerId;
    conversationId?: string;
    /** An existing project the files go to (instead of a conversation). */
    projectId?: string;
    adding: { files: number; bytes: number };
    limits: FileLimits;
    /** false: a quick look outside a transaction, before the checks of an upload run (no rows held). */
    lock?: boolean;
  },
): Promise<QuotaRefusal | null> {
  if (lock && ownerId !== null) {
    await holdOwnerRow(tx, ownerId);
  }
  if (projectId !== undefined) {
    if (lock) await holdProject(tx, { id: projectId, ownerId });
    const held = await heldFileCount(tx, { projectId });
    if (held + adding.files > limits.maxFilesPerProject) {
      return { quota: "project_files", limit: limits.maxFilesPerProject };
    }
  } else if (conversationId !== undefined) {
    if (lock) await holdConversation(tx, { id: conversationId, ownerId });
    const held = await heldFileCount(tx, { conversationId });
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
  if (refusal.quota === "project_files") {
    return new AppError(
      "conflict:project_files",
      `This project already holds ${refusal.limit} files, the most one may hold (MAX_FILES_PER_PROJECT). Delete files it no longer needs.`,
      { details: { max: refusal.limit } },
    );
  }
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
    `Your files would take more than the ${limitMb} MB you may store (MAX_STORAGE_MB_PER_USER). Delete conversations or project files you no longer need.`,
    { details: { limitBytes: refusal.limitBytes, usedBytes: refusal.usedBytes } },
  );
}

/** `GET /api/files/usage`: the owner's storage, and one conversation's or project's file count when named. */
export interface FileUsage {
  storage: { usedBytes: number; limitBytes: number };
  conversation?: { files: number; limit: number };
  project?: { files: number; limit: number };
}

/** What the owner's files use of the quotas, and of one conversation's or project's when named. */
export async function fileUsage(
  db: Db,
  {
    ownerId,
    conversationId,
    projectId,
    limits,
  }: { ownerId: OwnerId; conversationId?: string; projectId?: string; limits: FileLimits },
): Promise<FileUsage> {
  const usedBytes = await storageUsed(db, ownerId);
  const usage: FileUsage = { storage: { usedBytes, limitBytes: limits.maxStorageBytes } };
  if (conversationId !== undefined) {
    await getConversation(db, { id: conversationId, ownerId });
    usage.conversation = { files: await heldFileCount(db, { conversationId }), limit: limits.maxFilesPerConversation };
  }
  if (projectId !== undefined) {
    await getProject(db, { id: projectId, ownerId });
    usage.project = { files: await heldFileCount(db, { projectId }), limit: limits.maxFilesPerProject };
  }
  return usage;
}
