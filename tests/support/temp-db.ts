import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, inject } from "vitest";
import { closeDb, type Db, openDb, openPostgresDb } from "@/lib/db/client";
import { chosenStore } from "@/lib/env-config";
import { createDatabase } from "./throwaway-postgres";

export interface TempDb {
  db: Db;
  file: string;
  dir: string;
  /** Closes the database and opens it again, as a restart of the server does; `db` is then the new handle. */
  reopen: () => Promise<Db>;
  /** Another handle on the same database, as a second app instance has; the caller closes it. */
  openAnother: () => Promise<Db>;
  /** Closes whichever database `db` holds now and removes it. */
  cleanup: () => Promise<void>;
}

/**
 * A fresh, migrated database of the store under test: a SQLite file in its own temp directory, or,
 * in the PostgreSQL test project, a new database in its cluster (`file` and `dir` then hold nothing).
 */
export async function tempDb(): Promise<TempDb> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "ollama-web-test-"));
  const file = path.join(dir, "test.sqlite");
  const adminUrl = inject("postgresAdminUrl");
  const postgres = chosenStore() === "postgres" && adminUrl ? await createDatabase(adminUrl, "temp") : undefined;
  const open = () => (postgres ? openPostgresDb(postgres.url) : openDb(file));
  const ctx: TempDb = {
    db: await open(),
    file,
    dir,
    openAnother: open,
    reopen: async () => {
      await closeDb(ctx.db);
      ctx.db = await open();
      return ctx.db;
    },
    cleanup: async () => {
      await closeDb(ctx.db);
      await postgres?.drop();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
  return ctx;
}

/** A fresh database (`tempDb`) for each test of the file, removed after it; `use` receives it before the test. */
export function tempDbForEachTest(use: (temp: TempDb) => void): void {
  let temp: TempDb | undefined;
  beforeEach(async () => {
    temp = await tempDb();
    use(temp);
  });
  afterEach(async () => {
    await temp?.cleanup();
    temp = undefined;
  });
}
