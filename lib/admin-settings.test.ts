import { describe, expect, it, vi } from "vitest";
import { closeDb, type Db, sqliteConnection } from "@/lib/db/client";
import { postgresPool } from "@/lib/db/postgres";
import { type TempDb, tempDbForEachTest } from "@/tests/support/temp-db";
import { getSettings, syncSettings, updateSettings } from "./admin-settings";

let db: Db;
let temp: TempDb;
const env: NodeJS.ProcessEnv = { NODE_ENV: "test" };

tempDbForEachTest((each) => {
  temp = each;
  db = each.db;
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
    const copy = await import("./admin-settings");
    expect(copy.getSettings).not.toBe(getSettings);
    await copy.updateSettings(db, { roles: { general: "qwen3:8b" } }, env);
    expect((await getSettings(db, undefined, env)).roles.general).toEqual({ value: "qwen3:8b", source: "settings" });
  });
});

describe("a setting saved on one instance is what every instance reads from its next run on", () => {
  it("another instance's cache is dropped at its next run start (syncSettings), and only then", async () => {
    const other = await temp.openAnother();
    try {
      expect((await getSettings(db, undefined, env)).roles.general.value).toBeNull();
      expect((await getSettings(other, undefined, env)).roles.general.value).toBeNull();
      await updateSettings(other, { roles: { general: "qwen3:8b" } }, env);
      // Between run starts the cache holds (a run reads its settings as they were when it began).
      expect((await getSettings(db, undefined, env)).roles.general.value).toBeNull();
      await syncSettings(db);
      expect((await getSettings(db, undefined, env)).roles.general).toEqual({ value: "qwen3:8b", source: "settings" });
    } finally {
      await closeDb(other);
    }
  });

  it("a run start when nothing changed reads the one revision row, never the whole table again", async () => {
    await updateSettings(db, { roles: { general: "qwen3:8b" } }, env);
    await getSettings(db, undefined, env);
    const queries = settingsQueries();
    for (let run = 0; run < 5; run++) {
      await syncSettings(db);
      await getSettings(db, undefined, env);
    }
    expect(queries()).toHaveLength(5);
    expect(queries().every((sql) => sql.includes('"key" = '))).toBe(true);
  });
});
