import "server-only";
import { getConfig } from "@/lib/env-config";
import { AppError } from "@/lib/errors";
import { type Db, sqliteConnection } from "./client";
import { isPostgresUnreachable, postgresPool } from "./postgres";

/**
 * Another connection (a second process, an sqlite3 shell, a backup tool) holding the write lock:
 * SQLite waits DB_BUSY_TIMEOUT_MS, blocking the whole server, then fails with SQLITE_BUSY or
 * SQLITE_LOCKED. That is a temporary state the client can retry, not a server bug.
 */

/**
 * Whether the error, or one it wraps (drizzle wraps driver errors), is SQLite's busy/locked or
 * PostgreSQL out of reach (down, restarting, no free connection in time): temporary either way.
 */
export function isDatabaseBusy(error: unknown): boolean {
  if (isPostgresUnreachable(error)) return true;
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
  if (isPostgresUnreachable(cause)) {
    return new AppError("unavailable:database_unreachable", "The database cannot be reached. Retry in a moment.", {
      retryable: true,
      details: { retryAfterSeconds: busyRetryAfterSeconds() },
      cause,
    });
  }
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
  const pool = postgresPool(db);
  if (pool) return postgresStatus(pool);
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

/** PostgreSQL answers a query (within DATABASE_CONNECT_TIMEOUT_MS when the pool is full or the server away). */
async function postgresStatus(pool: NonNullable<ReturnType<typeof postgresPool>>): Promise<DatabaseStatus> {
  try {
    await pool.query("SELECT 1");
    return "ok";
  } catch (error) {
    if (!isPostgresUnreachable(error)) console.error("[db] health check failed", error);
    return "unavailable";
  }
}
