import fs from "node:fs";
import path from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";

/**
 * The store runs on SQLite and on PostgreSQL (docs/architecture.md, "Persistence"): queries are
 * awaited Drizzle builders. The synchronous better-sqlite3 calls (`.all()`, `.get()`, `.run()`,
 * `.values()` on a query) and the driver's own handle (`$client`, `sqliteConnection`) belong to the
 * SQLite adapter alone. Tests may look into SQLite itself; the app may not.
 */

const ROOT = path.resolve(__dirname, "../..");
/**
 * The SQLite adapter, the backup tool that copies the SQLite file itself, and the PostgreSQL adapter
 * (which reads its pool from `$client`).
 */
const ADAPTER = new Set(["lib/db/client.ts", "lib/db/busy.ts", "scripts/lib/database.mjs", "lib/db/postgres.ts"]);
const SYNC_CALLS = new Set(["all", "get", "run", "values"]);
/** A call chain that builds a query (Drizzle's builders, or a raw prepared statement). */
const QUERY_CHAIN = /\.(select|selectDistinct|insert|update|delete|from|prepare)\(|\.query\./;

function sourceFiles(dir: string): string[] {
  return fs.readdirSync(path.join(ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
    const relative = path.join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === "node_modules" ? [] : sourceFiles(relative);
    return /\.(ts|tsx|mts|mjs)$/.test(entry.name) && !/\.test\./.test(entry.name) ? [relative] : [];
  });
}

/** Where a file does what only the SQLite adapter may: `file:line code`. */
function unportableCalls(file: string, text: string): string[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  const report = (node: ts.Node) => {
    const line = source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1;
    found.push(`${file}:${line} ${node.getText(source).replace(/\s+/g, " ").slice(-80)}`);
  };
  const visit = (node: ts.Node) => {
    if (
      ts.isCallExpression(node) &&
      node.arguments.length === 0 &&
      ts.isPropertyAccessExpression(node.expression) &&
      SYNC_CALLS.has(node.expression.name.text) &&
      QUERY_CHAIN.test(node.expression.expression.getText(source))
    ) {
      report(node);
    }
    if (ts.isIdentifier(node) && (node.text === "$client" || node.text === "sqliteConnection")) report(node);
    if (ts.isStringLiteral(node) && /^(better-sqlite3|drizzle-orm\/better-sqlite3)/.test(node.text)) report(node);
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

describe("queries are portable: no synchronous better-sqlite3 calls outside the SQLite adapter", () => {
  it("finds none in lib/, app/ and scripts/", () => {
    const files = ["lib", "app", "scripts"].flatMap(sourceFiles).filter((file) => !ADAPTER.has(file));
    expect(files.length).toBeGreaterThan(100);
    const found = files.flatMap((file) => unportableCalls(file, fs.readFileSync(path.join(ROOT, file), "utf8")));
    expect(found).toEqual([]);
  });

  it("recognises each kind: a synchronous call on a query, the driver's handle, the driver itself", () => {
    const code = [
      'import Database from "better-sqlite3";',
      "const rows = db.select().from(runs).all();",
      "const one = db.select().from(runs).where(x).get();",
      "tx.insert(runs).values(row).run();",
      "db.$client.close();",
      "const pairs = new Map().values();",
      "const cached = this.probe.get();",
      "await db.select().from(runs);",
    ].join("\n");
    expect(unportableCalls("x.ts", code).map((line) => line.split(" ")[0])).toEqual([
      "x.ts:1",
      "x.ts:2",
      "x.ts:3",
      "x.ts:4",
      "x.ts:5",
    ]);
  });
});
