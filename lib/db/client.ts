import "server-only";
import { AsyncLocalStorage } from "node:async_hooks";
import fs from "node:fs";
import path from "node:path";
import Database from "better-sqlite3";
import { and, eq, inArray } from "drizzle-orm";
import { drizzle } from "drizzle-orm/better-sqlite3";
import { migrate } from "drizzle-orm/better-sqlite3/migrator";
import type { BaseSQLiteDatabase } from "drizzle-orm/sqlite-core";
import { orphanedRuns } from "@/lib/cluster/instance-registry";
import { getConfig } from "@/lib/env-config";
import { processSlot } from "@/lib/util/process-singleton";
import { connectPostgres, postgresPool } from "./postgres";
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

/** A drizzle statement ready to run on better-sqlite3; each method runs it at once. */
type SyncStatement = Record<"run" | "all" | "get" | "values", (...args: unknown[]) => unknown>;

/**
 * SQLite's transactions: one connection, so one transaction at a time, in a queue (better-sqlite3's
 * own `transaction()` refuses async bodies). While one is open, every statement from outside its
 * body waits its turn in the same queue: on the one connection it would otherwise join the
 * transaction, and a rollback would undo a write its caller had seen succeed. Statements of the
 * body, and a transaction begun inside it, are part of it (the body's async context says which).
 */
function serialTransactions(sqlite: Database.Database, db: Db): Db["transaction"] {
  const body = new AsyncLocalStorage<true>();
  let queue: Promise<unknown> = Promise.resolve();
  let waiting = 0;
  const inTurn = <T>(work: () => T | Promise<T>): Promise<T> => {
    waiting++;
    const turn = queue.then(work).finally(() => waiting--);
    queue = turn.catch(() => undefined);
    return turn;
  };

  const session = (db as unknown as { session: { prepareQuery: (...args: unknown[]) => SyncStatement } }).session;
  const prepare = session.prepareQuery.bind(session);
  // Set while a statement runs: Drizzle's `all` calls the statement's own `values`, which must not wait again.
  let running = false;
  session.prepareQuery = (...args) => {
    const statement = prepare(...args);
    for (const method of ["run", "all", "get", "values"] as const) {
      const original = statement[method].bind(statement);
      const direct = (...params: unknown[]) => {
        if (running) return original(...params);
        running = true;
        try {
          return original(...params);
        } finally {
          running = false;
        }
      };
      // Builders only ever await these, so a statement that must wait can return a promise.
      statement[method] = (...params) =>
        running || waiting === 0 || body.getStore() || atExit(db) ? direct(...params) : inTurn(() => direct(...params));
    }
    return statement;
  };

  return <T>(work: (tx: Db) => Promise<T>): Promise<T> => {
    if (body.getStore()) return work(db);
    return inTurn(() =>
      body.run(true, async () => {
        sqlite.exec("BEGIN IMMEDIATE");
        try {
          const result = await work(db);
          sqlite.exec("COMMIT");
          return result;
        } catch (error) {
          if (sqlite.inTransaction) sqlite.exec("ROLLBACK");
          throw error;
        }
      }),
    );
  };
}

const AT_EXIT = Symbol.for("ollama-web.db.atExit");
const atExit = (db: Db) => (db as unknown as Record<symbol, boolean | undefined>)[AT_EXIT] === true;

/**
 * At process exit only synchronous code runs: no promise settles after the `exit` event. SQLite can
 * still take the last writes, at once and in one transaction, ahead of the queue (a transaction
 * whose body was awaiting is rolled back first: it will never finish). PostgreSQL cannot: false,
 * and the next start's recovery ends the runs (`recoverInterruptedRuns`).
 */
export function writeAtExit(db: Db, statements: (db: Db) => PromiseLike<unknown>[]): boolean {
  const sqlite = (db as { $client?: unknown }).$client;
  if (!(sqlite instanceof Database) || !sqlite.open) return false;
  (db as unknown as Record<symbol, boolean>)[AT_EXIT] = true;
  if (sqlite.inTransaction) sqlite.exec("ROLLBACK");
  // On this synchronous driver a builder's `run()` executes it before returning.
  const run = (statement: PromiseLike<unknown>) => (statement as unknown as { run(): unknown }).run();
  sqlite.transaction(() => statements(db).forEach(run))();
  return true;
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

/**
 * Connects to PostgreSQL at `url`, applies pending migrations and recovers the runs a crash left
 * "running" that no registered app instance owns: other instances' runs go on (docs/cluster.md,
 * "Several app instances"); those of one that died are recovered by the survivors' sweep.
 */
export async function openPostgresDb(
  url: string,
  {
    migrationsFolder = path.join(process.cwd(), "drizzle-pg"),
    poolSize = getConfig().DATABASE_POOL_SIZE,
    connectTimeoutMs = getConfig().DATABASE_CONNECT_TIMEOUT_MS,
  }: { migrationsFolder?: string; poolSize?: number; connectTimeoutMs?: number } = {},
): Promise<Db> {
  const db = await connectPostgres(url, { poolSize, connectTimeoutMs, migrationsFolder });
  try {
    await recoverInterruptedRuns(db, { runIds: await orphanedRuns(postgresPool(db)!) });
    return db;
  } catch (error) {
    await closeDb(db);
    throw error;
  }
}

/** Work on a handle that outlives the request that started it, by handle. */
const backgroundWork = new WeakMap<Db, Set<Promise<unknown>>>();

/**
 * Work on `db` that outlives the request that started it (the library indexing a file just
 * stored): closing the handle waits for it first, so it never closes under an open transaction.
 */
export function trackBackground(db: Db, work: Promise<unknown>): void {
  const held = backgroundWork.get(db) ?? new Set<Promise<unknown>>();
  backgroundWork.set(db, held);
  const settled = work.then(
    () => undefined,
    () => undefined,
  );
  held.add(settled);
  void settled.finally(() => held.delete(settled));
}

/**
 * SQLite: writes the WAL back into the file and closes the connection. PostgreSQL: closes the pool
 * once its queries are done. Either waits for the handle's background work first. Closing twice
 * does nothing.
 */
export async function closeDb(db: Db): Promise<void> {
  const pending = backgroundWork.get(db);
  if (pending?.size) await Promise.allSettled([...pending]);
  const pool = postgresPool(db);
  if (pool) {
    if (!pool.ended) await pool.end();
    return;
  }
  const sqlite = sqliteConnection(db);
  if (!sqlite.open) return;
  sqlite.pragma("wal_checkpoint(TRUNCATE)");
  sqlite.close();
}

/**
 * A run still "running" when the process starts was cut off by a crash or restart (SQLite: every
 * such run); with PostgreSQL, `runIds` are the runs no app instance owns, recovered at a start or
 * by a survivor's sweep. A run is
 * stored as interrupted once: of two recoveries racing for it, only the one that ends it stores
 * its answer.
 */
export async function recoverInterruptedRuns(db: Db, { runIds }: { runIds?: string[] } = {}): Promise<number> {
  if (runIds?.length === 0) return 0;
  // Only the columns it needs. It runs after every migration (upgrade tests open an older schema
  // without it: `openOld` in lib/db/upgrade.test.ts).
  const running = eq(schema.runs.status, "running");
  const stale = await db
    .select({
      id: schema.runs.id,
      conversationId: schema.runs.conversationId,
      partialAnswer: schema.runs.partialAnswer,
      startedAt: schema.runs.startedAt,
      questionId: schema.runs.questionId,
    })
    .from(schema.runs)
    .where(runIds ? and(running, inArray(schema.runs.id, runIds)) : running);
  const now = Date.now();
  // One transaction per run, holding only its rows: two survivors sweeping the same runs cannot deadlock.
  let recovered = 0;
  for (const run of stale) {
    const stored = await db.transaction(async (tx) => {
      const ended = await tx
        .update(schema.runs)
        .set({ status: "interrupted", finishedAt: now, elapsedMs: now - run.startedAt })
        .where(and(eq(schema.runs.id, run.id), running))
        .returning({ id: schema.runs.id });
      if (ended.length === 0) return false;
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
      return true;
    });
    if (stored) recovered++;
  }
  return recovered;
}

const processDb = processSlot<Promise<Db>>("db");

/**
 * Lazily opened, once (`next build` evaluates route modules and must not touch the database). A
 * failed open is forgotten, so the next call tries again and reports its own error.
 */
export function getDb(): Promise<Db> {
  const open = processDb.get();
  if (open) return open;
  const { DATABASE_URL, DATA_DIR } = getConfig();
  const opening = DATABASE_URL ? openPostgresDb(DATABASE_URL) : openDb(path.resolve(DATA_DIR, DB_FILENAME));
  processDb.set(opening);
  opening.catch(() => {
    if (processDb.get() === opening) processDb.set(undefined);
  });
  return opening;
}

/** Tests point DATA_DIR elsewhere between files. */
export async function closeDbForTests(): Promise<void> {
  const opening = processDb.get();
  processDb.set(undefined);
  const db = await opening?.catch(() => undefined);
  if (db) await closeDb(db);
}
