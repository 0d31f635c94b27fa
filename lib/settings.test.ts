import { describe, expect, it, vi } from "vitest";
import { type Db, sqliteConnection } from "@/lib/db/client";
import { postgresPool } from "@/lib/db/postgres";
import { tempDbForEachTest } from "@/tests/support/temp-db";
import { getSettings, updateSettings } from "./settings";

let db: Db;
const env: NodeJS.ProcessEnv = { NODE_ENV: "test" };

tempDbForEachTest((temp) => {
  db = temp.db;
});

/** Statements run against the settings table from now on (SQLite prepares each; PostgreSQL's pool runs each). */
function settingsQueries(): () => string[] {
  const pool = postgresPool(db);
  const calls = pool ? vi.spyOn(pool, "query").mock.calls : vi.spyOn(sqliteConnection(db), "prepare").mock.calls;
  return () =>
    calls
      .map(([query]) => (typeof query === "string" ? query : String((query as { text?: unknown }).text)))
      .filter((sql) => sql.includes('"settings"'));
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

  it("the settings cache is one per process: a write through another copy of the module is what the next read returns", async () => {
    expect((await getSettings(db, undefined, env)).roles.general.value).toBeNull();
    // A second copy of the module, as Next.js may load one per bundle.
    vi.resetModules();
    const copy = await import("./settings");
    expect(copy.getSettings).not.toBe(getSettings);
    await copy.updateSettings(db, { roles: { general: "qwen3:8b" } }, env);
    expect((await getSettings(db, undefined, env)).roles.general).toEqual({ value: "qwen3:8b", source: "settings" });
  });
});
