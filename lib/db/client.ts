import "server-only";
import fs from "node:fs";
import path from "node:path";
import Database from "better-sqlite3";
import { eq } from "drizzle-orm";
import { type BetterSQLite3Database, drizzle } from "drizzle-orm/better-sqlite3";
import { migrate } from "drizzle-orm/better-sqlite3/migrator";
import { getConfig } from "@/lib/config";
import { storeAnswer } from "./runs";
import * as schema from "./schema";

export type Db = BetterSQLite3Database<typeof schema> & { $client: Database.Database };

export const DB_FILENAME = "ollama-web.sqlite";

/**
 * Opens (creating if needed) the database, applies pending migrations and recovers runs a crash
 * left "running". Called once per process through `getDb()`, or directly by tests.
 */
export function openDb(
  file: string,
  {
    migrationsFolder = path.join(process.cwd(), "drizzle"),
    busyTimeoutMs = getConfig().DB_BUSY_TIMEOUT_MS,
  }: { migrationsFolder?: string; busyTimeoutMs?: number } = {},
): Db {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const sqlite = new Database(file);
  sqlite.pragma("journal_mode = WAL");
  sqlite.pragma("foreign_keys = ON");
  // Short: better-sqlite3 is synchronous, so a write waiting for a lock stalls every request (lib/db/busy.ts).
  sqlite.pragma(`busy_timeout = ${busyTimeoutMs}`);
  sqlite.pragma("synchronous = NORMAL");
  const db = drizzle(sqlite, { schema }) as Db;
  migrate(db, { migrationsFolder });
  recoverInterruptedRuns(db);
  return db;
}

/** A run still "running" when the process starts was cut off by a crash or restart. */
export function recoverInterruptedRuns(db: Db): number {
  // Only the columns it needs. It runs after every migration (upgrade tests open an older schema
  // without it: `openOld` in lib/db/upgrade.test.ts).
  const stale = db
    .select({
      id: schema.runs.id,
      conversationId: schema.runs.conversationId,
      partialAnswer: schema.runs.partialAnswer,
      startedAt: schema.runs.startedAt,
      questionId: schema.runs.questionId,
    })
    .from(schema.runs)
    .where(eq(schema.runs.status, "running"))
    .all();
  const now = Date.now();
  db.transaction((tx) => {
    for (const run of stale) {
      tx.update(schema.runs)
        .set({ status: "interrupted", finishedAt: now, elapsedMs: now - run.startedAt })
        .where(eq(schema.runs.id, run.id))
        .run();
      storeAnswer(tx, {
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

const globalForDb = globalThis as unknown as { __ollamaWebDb?: Db };

/** Lazily opened: `next build` evaluates route modules and must not touch the database. */
export function getDb(): Db {
  if (!globalForDb.__ollamaWebDb) {
    const file = path.resolve(getConfig().DATA_DIR, DB_FILENAME);
    globalForDb.__ollamaWebDb = openDb(file);
  }
  return globalForDb.__ollamaWebDb;
}

/** Tests point DATA_DIR elsewhere between files. */
export function closeDbForTests(): void {
  globalForDb.__ollamaWebDb?.$client.close();
  globalForDb.__ollamaWebDb = undefined;
}
