import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { type Db, openDb, sqliteConnection } from "@/lib/db/client";

/** A fresh, migrated database in its own temp directory. */
export async function tempDb(): Promise<{ db: Db; file: string; dir: string; cleanup: () => void }> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "ollama-web-test-"));
  const file = path.join(dir, "test.sqlite");
  const ctx = {
    db: await openDb(file),
    file,
    dir,
    /** Closes whichever database `ctx.db` holds now (a test may reopen it) and removes the files. */
    cleanup: () => {
      const sqlite = sqliteConnection(ctx.db);
      if (sqlite.open) sqlite.close();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
  return ctx;
}
