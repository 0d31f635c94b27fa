import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { type Db, openDb, sqliteConnection } from "@/lib/db/client";
import { getSettings, updateSettings } from "./settings";

let dir = "";
let db: Db;
const env: NodeJS.ProcessEnv = { NODE_ENV: "test" };

beforeEach(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "settings-"));
  db = await openDb(path.join(dir, "test.sqlite"), { busyTimeoutMs: 100 });
});
afterEach(() => {
  sqliteConnection(db).close();
  fs.rmSync(dir, { recursive: true, force: true });
});

/** Statements run against the settings table from now on. */
function settingsQueries(): () => string[] {
  const prepare = vi.spyOn(sqliteConnection(db), "prepare");
  return () => prepare.mock.calls.map(([sql]) => String(sql)).filter((sql) => sql.includes('"settings"'));
}

describe("settings are read from the database once until one changes", () => {
  it("reads the settings table once, however often a run start reads the settings", async () => {
    const queries = settingsQueries();
    for (let run = 0; run < 5; run++) await getSettings(db, undefined, env);
    expect(queries()).toHaveLength(1);
  });

  it("a setting written is what the next read returns", async () => {
    expect((await getSettings(db, undefined, env)).roles.general.value).toBeNull();
    await updateSettings(db, { roles: { general: "qwen3:8b" } }, env);
    expect((await getSettings(db, undefined, env)).roles.general).toEqual({ value: "qwen3:8b", source: "settings" });
    await updateSettings(db, { roles: { general: null } }, env);
    expect((await getSettings(db, undefined, env)).roles.general).toEqual({ value: null, source: "default" });
  });
});
