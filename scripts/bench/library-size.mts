// The bytes the library index takes in a store, for bench:library: the passages' table with its
// indexes and the full-text index (SQLite: the FTS5 table's shadow tables, read from `dbstat`;
// PostgreSQL: the table with its GIN index and TOAST).
import { sql } from "drizzle-orm";
import type { Db } from "@/lib/db/client";

export async function indexSize(db: Db, store: "sqlite" | "postgres"): Promise<number> {
  const [row] =
    store === "postgres"
      ? await db.select({ bytes: sql<string>`pg_total_relation_size('file_chunks')` }).from(sql`(SELECT 1) AS one`)
      : await db.select({ bytes: sql<number>`sum(pgsize)` }).from(sql`dbstat`).where(sql`name LIKE 'file_chunks%'`);
  return Number(row?.bytes ?? 0);
}
