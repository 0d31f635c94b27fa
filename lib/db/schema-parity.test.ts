import { getTableName, type InferInsertModel, type InferSelectModel, is, type Table } from "drizzle-orm";
import { PgTable, getTableConfig as pgTableConfig } from "drizzle-orm/pg-core";
import { SQLiteTable, getTableConfig as sqliteTableConfig } from "drizzle-orm/sqlite-core";
import { describe, expect, expectTypeOf, it } from "vitest";
import { chosenStore } from "../env-config";
import * as storeSchema from "./schema";
import * as pgSchema from "./schema-pg";
import * as sqliteSchema from "./schema-sqlite";

/**
 * `lib/db/schema-pg.ts` is the PostgreSQL twin of `lib/db/schema.ts`: the store's queries are typed
 * from the SQLite tables and run on the PostgreSQL ones, so both must agree column for column.
 */

type Config = ReturnType<typeof sqliteTableConfig> | ReturnType<typeof pgTableConfig>;

/** What a table is at the SQL level, in terms both dialects share. */
function shape(config: Config) {
  return {
    columns: Object.fromEntries(
      config.columns.map((column) => [
        column.name,
        {
          notNull: column.notNull || column.primary,
          primary: column.primary,
          unique: column.isUnique,
          hasDefault: column.hasDefault,
          default: column.default,
          enumValues: column.enumValues ?? [],
        },
      ]),
    ),
    primaryKeys: config.primaryKeys.map((key) => key.columns.map((column) => column.name)),
    uniqueConstraints: config.uniqueConstraints.map((unique) => unique.columns.map((column) => column.name)),
    indexes: config.indexes
      .map(({ config: index }) => ({
        name: index.name ?? "",
        unique: index.unique,
        columns: index.columns.map((column) => ("name" in column ? column.name : String(column))),
      }))
      .sort((a, b) => a.name.localeCompare(b.name)),
    foreignKeys: config.foreignKeys
      .map((key) => {
        const reference = key.reference();
        return {
          columns: reference.columns.map((column) => column.name),
          foreignTable: getTableName(reference.foreignTable),
          foreignColumns: reference.foreignColumns.map((column) => column.name),
          onDelete: key.onDelete ?? "no action",
          onUpdate: key.onUpdate ?? "no action",
        };
      })
      .sort((a, b) => a.columns.join().localeCompare(b.columns.join())),
  };
}

function sqliteTables() {
  return Object.values(sqliteSchema)
    .filter((value) => is(value, SQLiteTable))
    .map((table) => sqliteTableConfig(table));
}

function pgTables() {
  return Object.values(pgSchema)
    .filter((value) => is(value, PgTable))
    .map((table) => pgTableConfig(table));
}

const byName = <T extends { name: string }>(configs: T[]) => new Map(configs.map((config) => [config.name, config]));

/** Each table's row type under its export name (checked at compile time, by `tsc`). */
type Rows<Schema, Infer extends "select" | "insert"> = {
  [Name in keyof Schema as Schema[Name] extends Table ? Name : never]: Schema[Name] extends Table
    ? Infer extends "select"
      ? InferSelectModel<Schema[Name]>
      : InferInsertModel<Schema[Name]>
    : never;
};

describe("schema parity", () => {
  it("the SQLite and PostgreSQL schemas define the same tables and columns", () => {
    const sqlite = byName(sqliteTables());
    const pg = byName(pgTables());
    expect([...pg.keys()].sort()).toEqual([...sqlite.keys()].sort());
    for (const [name, config] of sqlite) {
      const twin = pg.get(name);
      if (!twin) throw new Error(`no PostgreSQL table ${name}`);
      expect({ table: name, ...shape(twin) }).toEqual({ table: name, ...shape(config) });
    }
    expectTypeOf<Rows<typeof pgSchema, "select">>().toEqualTypeOf<Rows<typeof sqliteSchema, "select">>();
    expectTypeOf<Rows<typeof pgSchema, "insert">>().toEqualTypeOf<Rows<typeof sqliteSchema, "insert">>();
  });

  it("the store hands out every table, and only the chosen store's", () => {
    const tables = Object.values(storeSchema).filter((value) => is(value, SQLiteTable) || is(value, PgTable));
    expect(tables.map((table) => getTableName(table as Table)).sort()).toEqual(
      sqliteTables()
        .map((config) => config.name)
        .sort(),
    );
    const dialect = chosenStore() === "postgres" ? PgTable : SQLiteTable;
    expect(tables.filter((table) => !is(table, dialect)).map((table) => getTableName(table as Table))).toEqual([]);
  });
});
