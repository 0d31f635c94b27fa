import "server-only";
import { type SQL, type SQLWrapper, sql } from "drizzle-orm";
import type { SQLiteTable } from "drizzle-orm/sqlite-core";
import { chosenStore } from "@/lib/env-config";

/**
 * The few SQL fragments whose spelling differs between the dialects the store runs on, so the
 * query modules stay portable (docs/architecture.md, "Persistence").
 */

/** The store's dialect, chosen once at start, as lib/db/schema.ts's tables are. */
const store = chosenStore();

/**
 * The order rows were inserted in, a tiebreak for rows stored in the same millisecond. SQLite: the
 * table's implicit `rowid`. PostgreSQL: the tables ordered by it (`messages`, `interrupts`, `files`)
 * have an explicit `rowid bigserial` column, so the same SQL reads it.
 */
export function insertionOrder(table: SQLiteTable): SQL {
  return sql`${table}.rowid`;
}

/**
 * `value` contains `pattern`, a LIKE pattern whose `%`, `_` and `\` are escaped with `\`, in any
 * case. SQLite: LIKE folds ASCII case by itself. PostgreSQL: LIKE is case-sensitive, ILIKE is needed.
 */
export function likeIgnoringCase(value: SQLWrapper, pattern: string): SQL {
  if (store === "postgres") return sql`${value} ILIKE ${pattern} ESCAPE '\\'`;
  return sql`${value} LIKE ${pattern} ESCAPE '\\'`;
}

/**
 * `a` equals `b`, two nulls included. Both dialects spell it `IS NOT DISTINCT FROM` (SQLite since
 * 3.39; `IS` alone is SQLite's only).
 */
export function sameOrBothNull(a: SQLWrapper, b: SQLWrapper | string | null): SQL {
  return sql`${a} IS NOT DISTINCT FROM ${b}`;
}

/** `FOR SHARE` with PostgreSQL (other readers may share the row; an update waits); SQLite has one writer anyway. */
export function lockedForShare<T extends PromiseLike<unknown>>(query: T): T {
  if (store !== "postgres") return query;
  return (query as unknown as { for(strength: "share"): T }).for("share");
}

/**
 * The rows a select reads, locked until its transaction ends. PostgreSQL: `FOR UPDATE`, which waits
 * for a transaction that inserted rows referencing them (its foreign key check locks them) and
 * makes such an insert wait. SQLite: nothing to add, its transactions run one at a time.
 */
export function lockedForUpdate<T extends PromiseLike<unknown>>(query: T): T {
  if (store !== "postgres") return query;
  return (query as unknown as { for(strength: "update"): T }).for("update");
}

/**
 * The rows a select reads, locked until its transaction ends, skipping rows another transaction
 * holds. PostgreSQL: `FOR UPDATE SKIP LOCKED`, so instances claiming rows at once each get their
 * own. SQLite: nothing to add, its transactions run one at a time.
 */
export function skippingLocked<T extends PromiseLike<unknown>>(query: T): T {
  if (store !== "postgres") return query;
  return (query as unknown as { for(strength: "update", config: { skipLocked: true }): T }).for("update", {
    skipLocked: true,
  });
}
