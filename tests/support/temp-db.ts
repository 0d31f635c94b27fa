import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { type Db, openDb } from "@/lib/db/client";

/** A fresh, migrated database in its own temp directory. */
export function tempDb(): { db: Db; file: string; dir: string; cleanup: () => void } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "ollama-web-test-"));
  const file = path.join(dir, "test.sqlite");
  const ctx = {
    db: openDb(file),
    file,
    dir,
    /** Closes whichever database `ctx.db` holds now (a test may reopen it) and removes the files. */
    cleanup: () => {
      if (ctx.db.$client.open) ctx.db.$client.close();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
  return ctx;
}
