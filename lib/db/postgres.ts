import "server-only";
import { drizzle } from "drizzle-orm/node-postgres";
import { migrate } from "drizzle-orm/node-postgres/migrator";
import pg from "pg";
import type { Db } from "./client";
import * as schema from "./schema";

/**
 * The PostgreSQL adapter (docs/architecture.md, "Persistence"): a pool of `DATABASE_POOL_SIZE`
 * connections behind the same `Db` as SQLite's. Drizzle's pg transactions already take an async
 * body, each on a connection of its own, so they serve `Db.transaction` as they are.
 */

// int8 (bigint) comes back as a string by default, to keep values past 2^53 exact. Ours (times in
// ms, counts, sums of them) stay far below, and the queries are typed as SQLite's numbers.
pg.types.setTypeParser(pg.types.builtins.INT8, (value) => Number(value));

/** Any number, the same for every instance: held while one of them migrates. */
const MIGRATION_LOCK = 7_273_000_117;

export interface PostgresOptions {
  poolSize: number;
  /** How long a query waits for a connection (a free one of the pool, or a new one). */
  connectTimeoutMs: number;
  migrationsFolder: string;
}

/** Connects to `url` and applies pending migrations, one instance at a time. */
export async function connectPostgres(url: string, options: PostgresOptions): Promise<Db> {
  const pool = new pg.Pool({
    connectionString: url,
    max: options.poolSize,
    connectionTimeoutMillis: options.connectTimeoutMs,
  });
  // A connection that fails while idle (the server restarted) is dropped from the pool; without a
  // listener its error would end the process.
  pool.on("error", (error) => console.error("[db] a PostgreSQL connection failed:", error.message));
  try {
    const driver = drizzle(pool, { schema });
    await migrateExclusively(url, () => migrate(driver, { migrationsFolder: options.migrationsFolder }));
    return driver as unknown as Db;
  } catch (error) {
    await pool.end();
    throw error;
  }
}

/** Instances starting together take turns: the first migrates, the others then find nothing to do. */
async function migrateExclusively(url: string, body: () => Promise<void>): Promise<void> {
  const lock = new pg.Client({ connectionString: url });
  await lock.connect();
  try {
    await lock.query("SELECT pg_advisory_lock($1)", [MIGRATION_LOCK]);
    await body();
  } finally {
    await lock.end();
  }
}

/**
 * The pool behind `db`, or undefined for a SQLite handle: the driver's own handle, which travels
 * with `db` (Next.js may load this module more than once; `db` is shared).
 */
export function postgresPool(db: Db): pg.Pool | undefined {
  const client = (db as { $client?: unknown }).$client;
  return client instanceof pg.Pool ? client : undefined;
}

/** SQLSTATE classes and codes of a server that is down, starting, full or gone mid-query. */
const UNREACHABLE_SQLSTATE = /^(08|57P0[1-3]|53300)/;
const UNREACHABLE_NODE_CODES = new Set(["ECONNREFUSED", "ECONNRESET", "ETIMEDOUT", "EPIPE", "ENOTFOUND", "EAI_AGAIN"]);
/** pg-pool and pg say these without a code. */
const UNREACHABLE_MESSAGE = /timeout exceeded when trying to connect|Connection terminated/i;

/** Whether the error, or one it wraps (drizzle wraps driver errors), says PostgreSQL cannot be reached now. */
export function isPostgresUnreachable(error: unknown): boolean {
  let current: unknown = error;
  for (let depth = 0; current && depth < 5; depth++) {
    const { code, message } = current as { code?: unknown; message?: unknown };
    if (typeof code === "string" && (UNREACHABLE_SQLSTATE.test(code) || UNREACHABLE_NODE_CODES.has(code))) return true;
    if (typeof message === "string" && UNREACHABLE_MESSAGE.test(message)) return true;
    current = (current as { cause?: unknown }).cause;
  }
  return false;
}
