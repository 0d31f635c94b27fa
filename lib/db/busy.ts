import "server-only";
import { getConfig } from "@/lib/config";
import { AppError } from "@/lib/errors";
import { type Db, sqliteConnection } from "./client";

/**
 * Another connection (a second process, an sqlite3 shell, a backup tool) holding the write lock:
 * SQLite waits DB_BUSY_TIMEOUT_MS, blocking the whole server, then fails with SQLITE_BUSY or
 * SQLITE_LOCKED. That is a temporary state the client can retry, not a server bug.
 */

/** Whether the error, or one it wraps (drizzle wraps driver errors), is SQLite's busy/locked. */
export function isDatabaseBusy(error: unknown): boolean {
  let current: unknown = error;
  for (let depth = 0; current && depth < 5; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === "string" && /^SQLITE_(BUSY|LOCKED)/.test(code)) return true;
    current = (current as { cause?: unknown }).cause;
  }
  return false;
}

/** Seconds a client should wait before retrying: about as long as one write may wait. */
export function busyRetryAfterSeconds(): number {
  return Math.max(1, Math.ceil(getConfig().DB_BUSY_TIMEOUT_MS / 1000));
}

export function databaseBusyError(cause?: unknown): AppError {
  return new AppError(
    "unavailable:database_busy",
    "The database is busy (locked by another process). Retry in a moment.",
    { retryable: true, details: { retryAfterSeconds: busyRetryAfterSeconds() }, cause },
  );
}

/** Runs `write` now; while the database is busy, again every retry interval until it goes through. */
export async function writeWhenFree(write: () => Promise<unknown>, what: string): Promise<boolean> {
  try {
    await write();
    return true;
  } catch (error) {
    if (!isDatabaseBusy(error)) throw error;
  }
  const retry = async () => {
    try {
      await write();
      console.log(`[db] stored ${what} once the database was free`);
    } catch (error) {
      if (isDatabaseBusy(error)) setTimeout(retry, busyRetryAfterSeconds() * 1000).unref();
      else console.error(`[db] could not store ${what}`, error);
    }
  };
  setTimeout(retry, busyRetryAfterSeconds() * 1000).unref();
  return false;
}

export type DatabaseStatus = "ok" | "busy" | "unavailable";

/**
 * Whether a write could start now. Readers are never blocked in WAL mode, so this takes and drops
 * the write lock without waiting (busy_timeout 0): a health check must not block the server.
 */
export async function databaseStatus(db: Db): Promise<DatabaseStatus> {
  const sqlite = sqliteConnection(db);
  try {
    if (sqlite.inTransaction) return "ok";
    const timeout = sqlite.pragma("busy_timeout", { simple: true });
    sqlite.pragma("busy_timeout = 0");
    try {
      sqlite.exec("BEGIN IMMEDIATE");
      sqlite.exec("ROLLBACK");
    } finally {
      sqlite.pragma(`busy_timeout = ${Number(timeout)}`);
    }
    return "ok";
  } catch (error) {
    if (isDatabaseBusy(error)) return "busy";
    console.error("[db] health check failed", error);
    return "unavailable";
  }
}
