// The bytes the library index takes in a store, for bench:library: the passages' table with its
// indexes and the full-text index (SQLite: the FTS5 table's shadow tables; PostgreSQL: the GIN index).
import { type Db, sqliteConnection } from "@/lib/db/client";
import { postgresPool } from "@/lib/db/postgres";

export async function indexSize(db: Db, store: "sqlite" | "postgres"): Promise<number> {
  if (store === "postgres") {
    const pool = postgresPool(db);
    if (!pool) throw new Error("not a PostgreSQL handle");
    const result = await pool.query<{ bytes: string }>("SELECT pg_total_relation_size('file_chunks') AS bytes");
    return Number(result.rows[0]?.bytes ?? 0);
  }
  const sqlite = sqliteConnection(db);
  // dbstat sums the pages of each table and index; file_chunks_fts keeps its index in shadow tables.
  try {
    const row = sqlite
      .prepare("SELECT sum(pgsize) AS bytes FROM dbstat WHERE name LIKE 'file_chunks%'")
      .get() as { bytes: number | null };
    return Number(row.bytes ?? 0);
  } catch {
    const pages = sqlite.pragma("page_count", { simple: true }) as number;
    const pageSize = sqlite.pragma("page_size", { simple: true }) as number;
    return pages * pageSize;
  }
}
