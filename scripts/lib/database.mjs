// Copying and checking an ollama-web database file, for scripts/backup.mjs and scripts/restore.mjs.
import fs from "node:fs";
import path from "node:path";
import Database from "better-sqlite3";
import { requireFile, UsageError } from "./cli.mjs";
import { projectRoot } from "./data-dir.mjs";

/** What makes a SQLite file an ollama-web database. */
export const REQUIRED_TABLES = ["conversations", "messages", "files"];

/**
 * A consistent copy of `source` at `destination` (a new file) through SQLite's online backup API:
 * it reads through the WAL and sees one snapshot, while the server keeps reading and writing.
 * The copy is one self-contained file (rollback journal, no -wal beside it).
 */
export async function copyDatabase(source, destination) {
  const db = new Database(source, { readonly: true, fileMustExist: true });
  try {
    db.pragma("busy_timeout = 5000");
    // The first step only sizes the copy; the second copies every page inside one read transaction,
    // so writes that land meanwhile can't make SQLite restart it again and again.
    await db.backup(destination, { progress: () => 0x7fffffff });
  } finally {
    db.close();
  }
  const copy = new Database(destination);
  try {
    copy.pragma("journal_mode = DELETE");
  } finally {
    copy.close();
  }
}

function lastMigrationInSources() {
  try {
    const journal = JSON.parse(fs.readFileSync(path.join(projectRoot, "drizzle/meta/_journal.json"), "utf8"));
    return Math.max(0, ...journal.entries.map((entry) => entry.when));
  } catch {
    return undefined;
  }
}

/**
 * Checks that `file` is an intact ollama-web database and counts what it holds. Throws a UsageError
 * saying what is wrong otherwise.
 * @returns {{ size: number, conversations: number, messages: number, files: number, newerSchema: boolean }}
 */
export function inspectDatabase(file) {
  const size = requireFile(file);
  let db;
  try {
    db = new Database(file, { readonly: true, fileMustExist: true });
    const tables = new Set(db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").pluck().all());
    const missing = REQUIRED_TABLES.filter((table) => !tables.has(table));
    if (missing.length > 0) {
      throw new UsageError(`${file} is not an ollama-web database (no ${missing.join(", ")} table).`);
    }
    const problems = db.pragma("integrity_check", { simple: false }).map((row) => row.integrity_check);
    if (problems.length !== 1 || problems[0] !== "ok") {
      throw new UsageError(`${file} is damaged (integrity_check: ${problems.slice(0, 3).join("; ")}).`);
    }
    const count = (table) => db.prepare(`SELECT count(*) FROM "${table}"`).pluck().get();
    const lastApplied = tables.has("__drizzle_migrations")
      ? db.prepare("SELECT max(created_at) FROM __drizzle_migrations").pluck().get()
      : null;
    const lastKnown = lastMigrationInSources();
    return {
      size,
      conversations: count("conversations"),
      messages: count("messages"),
      files: count("files"),
      newerSchema: lastApplied != null && lastKnown !== undefined && Number(lastApplied) > lastKnown,
    };
  } catch (error) {
    if (error instanceof UsageError) throw error;
    if (error?.code === "SQLITE_NOTADB") throw new UsageError(`${file} is not an SQLite database.`);
    throw new UsageError(`${file} cannot be read as a database: ${error.message}`);
  } finally {
    db?.close();
  }
}

export function describeContents(summary) {
  const plural = (n, word) => `${n} ${word}${n === 1 ? "" : "s"}`;
  return `${plural(summary.conversations, "conversation")}, ${plural(summary.messages, "message")}, ${plural(summary.files, "file")}`;
}
