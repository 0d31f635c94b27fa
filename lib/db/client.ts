import "server-only";
import fs from "node:fs";
import path from "node:path";
import Database from "better-sqlite3";
import { eq } from "drizzle-orm";
import { drizzle } from "drizzle-orm/better-sqlite3";
import { migrate } from "drizzle-orm/better-sqlite3/migrator";
import type { BaseSQLiteDatabase } from "drizzle-orm/sqlite-core";
import { getConfig } from "@/lib/config";
import { storeAnswer } from "./runs";
import * as schema from "./schema";

/**
 * The store's handle, the same for every dialect (docs/architecture.md, "Persistence"): queries are
 * awaited builders, typed from the SQLite schema; the result of a write without `returning` is
 * left opaque. Its `transaction` is ours, so one signature serves SQLite and PostgreSQL.
 */
export type Db = Omit<
  BaseSQLiteDatabase<"async", unknown, typeof schema>,
  "transaction" | "run" | "all" | "get" | "values"
> & {
  transaction<T>(body: (tx: Db) => Promise<T>): Promise<T>;
};

export const DB_FILENAME = "ollama-web.sqlite";

/**
 * SQLite's transactions: one connection, so one transaction at a time, queued (better-sqlite3's own
 * `transaction()` refuses async bodies). A transaction begun inside a body is part of it. Caveat: a
 * statement another request issues while a body awaits runs inside that transaction; bodies
 * therefore await nothing but the database, whose statements run at once.
 */
function serialTransactions(sqlite: Database.Database, db: Db): Db["transaction"] {
  const tx: Db = Object.create(db);
  tx.transaction = (body) => body(tx);
  let queue: Promise<unknown> = Promise.resolve();
  return <T>(body: (tx: Db) => Promise<T>): Promise<T> => {
    const turn = queue.then(async () => {
      sqlite.exec("BEGIN IMMEDIATE");
      try {
        const result = await body(tx);
        sqlite.exec("COMMIT");
        return result;
      } catch (error) {
        if (sqlite.inTransaction) sqlite.exec("ROLLBACK");
        throw error;
      }
    });
    queue = turn.catch(() => undefined);
    return turn;
  };
}

/**
 * Opens (creating if needed) the database, applies pending migrations and recovers runs a crash
 * left "running". Called once per process through `getDb()`, or directly by tests.
 */
export async function openDb(
  file: string,
  {
    migrationsFolder = path.join(process.cwd(), "drizzle"),
    busyTimeoutMs = getConfig().DB_BUSY_TIMEOUT_MS,
  }: { migrationsFolder?: string; busyTimeoutMs?: number } = {},
): Promise<Db> {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const sqlite = new Database(file);
  try {
    sqlite.pragma("journal_mode = WAL");
    sqlite.pragma("foreign_keys = ON");
    // Short: better-sqlite3 is synchronous, so a write waiting for a lock stalls every request (lib/db/busy.ts).
    sqlite.pragma(`busy_timeout = ${busyTimeoutMs}`);
    sqlite.pragma("synchronous = NORMAL");
    const driver = drizzle(sqlite, { schema });
    migrate(driver, { migrationsFolder });
    // The builders are thenables that run at once on this synchronous driver: typed as the async dialect they are used as.
    const db = driver as unknown as Db;
    Object.assign(db, { transaction: serialTransactions(sqlite, db) });
    await recoverInterruptedRuns(db);
    return db;
  } catch (error) {
    sqlite.close();
    throw error;
  }
}

/**
 * The SQLite connection behind `db` (the adapter and SQLite-only tests): the driver's own handle,
 * which travels with `db` (Next.js may load this module more than once; `db` is shared).
 */
export function sqliteConnection(db: Db): Database.Database {
  const sqlite = (db as { $client?: unknown }).$client;
  if (!(sqlite instanceof Database)) throw new Error("Not a SQLite database handle.");
  return sqlite;
}

/** Writes the WAL back into the file and closes the connection; closing twice does nothing. */
export function closeDb(db: Db): void {
  const sqlite = sqliteConnection(db);
  if (!sqlite.open) return;
  sqlite.pragma("wal_checkpoint(TRUNCATE)");
  sqlite.close();
}

/** A run still "running" when the process starts was cut off by a crash or restart. */
export async function recoverInterruptedRuns(db: Db): Promise<number> {
  // Only the columns it needs. It runs after every migration (upgrade tests open an older schema
  // without it: `openOld` in lib/db/upgrade.test.ts).
  const stale = await db
    .select({
      id: schema.runs.id,
      conversationId: schema.runs.conversationId,
      partialAnswer: schema.runs.partialAnswer,
      startedAt: schema.runs.startedAt,
      questionId: schema.runs.questionId,
    })
    .from(schema.runs)
    .where(eq(schema.runs.status, "running"));
  const now = Date.now();
  await db.transaction(async (tx) => {
    for (const run of stale) {
      await tx
        .update(schema.runs)
        .set({ status: "interrupted", finishedAt: now, elapsedMs: now - run.startedAt })
        .where(eq(schema.runs.id, run.id));
      await storeAnswer(tx, {
        id: crypto.randomUUID(),
        conversationId: run.conversationId,
        parentId: run.questionId,
        role: "assistant",
        content: run.partialAnswer ?? "",
        status: "interrupted",
        runId: run.id,
        attachmentIds: null,
        createdAt: now,
      });
    }
  });
  return stale.length;
}

const globalForDb = globalThis as unknown as { __ollamaWebDb?: Promise<Db> };

/**
 * Lazily opened, once (`next build` evaluates route modules and must not touch the database). A
 * failed open is forgotten, so the next call tries again and reports its own error.
 */
export function getDb(): Promise<Db> {
  if (!globalForDb.__ollamaWebDb) {
    const file = path.resolve(getConfig().DATA_DIR, DB_FILENAME);
    const opening = openDb(file);
    globalForDb.__ollamaWebDb = opening;
    opening.catch(() => {
      if (globalForDb.__ollamaWebDb === opening) globalForDb.__ollamaWebDb = undefined;
    });
  }
  return globalForDb.__ollamaWebDb;
}

/** Tests point DATA_DIR elsewhere between files. */
export async function closeDbForTests(): Promise<void> {
  const opening = globalForDb.__ollamaWebDb;
  globalForDb.__ollamaWebDb = undefined;
  const db = await opening?.catch(() => undefined);
  if (db) sqliteConnection(db).close();
}
