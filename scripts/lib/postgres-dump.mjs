// Backing up and restoring an ollama-web database on PostgreSQL (DATABASE_URL), for scripts/backup.mjs
// and scripts/restore.mjs: pg_dump's custom format, restored by pg_restore in one transaction.
import { spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import pg from "pg";
import { requireFile, UsageError } from "./cli.mjs";
import { projectRoot } from "./data-dir.mjs";
import { REQUIRED_TABLES } from "./database.mjs";
import { postgresProgram } from "./postgres-bin.mjs";

/** The file name suffix of a backup of a PostgreSQL store. */
export const DUMP_SUFFIX = ".pgdump";

/** DATABASE_URL when it names a PostgreSQL database; undefined when unset (the SQLite store). */
export function postgresUrl() {
  const value = process.env.DATABASE_URL?.trim();
  if (!value) return undefined;
  if (!/^postgres(ql)?:\/\//i.test(value)) {
    throw new UsageError("DATABASE_URL must be a postgres:// or postgresql:// URL (or unset, for SQLite in DATA_DIR).");
  }
  return value;
}

/**
 * How to hand the URL to PostgreSQL's programs: the password goes in PGPASSWORD, never on a command
 * line that `ps` shows to every user of the machine.
 */
function connection(url) {
  const parsed = new URL(url);
  const password = decodeURIComponent(parsed.password);
  parsed.password = "";
  return { dbname: parsed.toString(), env: password ? { ...process.env, PGPASSWORD: password } : process.env };
}

/** Where the URL points, without its password, for messages. */
export function describeUrl(url) {
  const parsed = new URL(url);
  parsed.password = "";
  return parsed.toString();
}

function program(name) {
  const found = postgresProgram(name);
  if (!found)
    throw new UsageError(
      `${name} was not found. Install PostgreSQL's client programs (apt-get install postgresql-client).`,
    );
  return found;
}

/** Runs a PostgreSQL program; its standard output goes to `stdout` (a file descriptor) or is returned. */
function runProgram(name, args, { env, stdout } = {}) {
  return new Promise((resolve, reject) => {
    const child = spawn(program(name), args, { env, stdio: ["ignore", stdout ?? "pipe", "pipe"] });
    let output = "";
    let errors = "";
    child.stdout?.on("data", (chunk) => {
      output += chunk;
    });
    child.stderr.on("data", (chunk) => {
      errors += chunk;
    });
    child.on("error", reject);
    child.on("close", (code) => {
      if (code === 0) resolve(output);
      else reject(new UsageError(`${name} failed (exit ${code}): ${errors.trim()}`));
    });
  });
}

async function connect(url) {
  const client = new pg.Client({ connectionString: url });
  try {
    await client.connect();
  } catch (error) {
    throw new UsageError(`Cannot connect to ${describeUrl(url)}: ${error.message}`);
  }
  return client;
}

async function countRows(client) {
  const count = async (table) => Number((await client.query(`SELECT count(*) AS n FROM "${table}"`)).rows[0].n);
  return {
    conversations: await count("conversations"),
    messages: await count("messages"),
    files: await count("files"),
  };
}

/** The tables that make an ollama-web database which the database at `url` lacks. */
export async function missingTablesAt(url) {
  const client = await connect(url);
  try {
    return await missingTables(client);
  } finally {
    await client.end();
  }
}

async function missingTables(client) {
  const { rows } = await client.query(
    "SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema() AND table_name = ANY($1)",
    [REQUIRED_TABLES],
  );
  const present = new Set(rows.map((row) => row.table_name));
  return REQUIRED_TABLES.filter((table) => !present.has(table));
}

/**
 * Dumps the database at `url` into `destination` (a new file, created owner-only before a byte is
 * written). pg_dump reads one snapshot while the app keeps writing; the counts come from the same
 * snapshot, exported by the transaction that takes them.
 * @returns {Promise<{ size: number, conversations: number, messages: number, files: number }>}
 */
export async function dumpDatabase(url, destination) {
  const client = await connect(url);
  const fd = fs.openSync(destination, "wx", 0o600);
  try {
    await client.query("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY");
    const missing = await missingTables(client);
    if (missing.length > 0) {
      throw new UsageError(`${describeUrl(url)} is not an ollama-web database (no ${missing.join(", ")} table).`);
    }
    const { rows } = await client.query("SELECT pg_export_snapshot() AS snapshot");
    const counts = await countRows(client);
    const { dbname, env } = connection(url);
    await runProgram("pg_dump", ["--format=custom", `--snapshot=${rows[0].snapshot}`, `--dbname=${dbname}`], {
      env,
      stdout: fd,
    });
    fs.fsyncSync(fd);
    return { size: fs.fstatSync(fd).size, ...counts };
  } finally {
    fs.closeSync(fd);
    await client.end();
  }
}

function lastMigrationInSources() {
  const journal = JSON.parse(fs.readFileSync(path.join(projectRoot, "drizzle-pg/meta/_journal.json"), "utf8"));
  return Math.max(0, ...journal.entries.map((entry) => entry.when));
}

/**
 * Checks that `file` is a pg_dump archive of an ollama-web database.
 * @returns {Promise<{ size: number, newerSchema: boolean }>}
 */
export async function inspectDump(file) {
  const size = requireFile(file);
  let contents;
  try {
    contents = await runProgram("pg_restore", ["--list", file]);
  } catch {
    throw new UsageError(`${file} is not a PostgreSQL backup (pg_dump -Fc) of ollama-web.`);
  }
  const tables = new Set([...contents.matchAll(/ TABLE DATA \S+ (\S+) /g)].map((match) => match[1]));
  const missing = REQUIRED_TABLES.filter((table) => !tables.has(table));
  if (missing.length > 0) {
    throw new UsageError(`${file} is not an ollama-web backup (no ${missing.join(", ")} table).`);
  }
  // The migrations the backed-up database had: Drizzle's journal table, as COPY lines (id, hash, created_at).
  const journal = await runProgram("pg_restore", [
    "--data-only",
    "--schema=drizzle",
    "--table=__drizzle_migrations",
    "--file=-",
    file,
  ]);
  const applied = [...journal.matchAll(/^\d+\t\S+\t(\d+)$/gm)].map((match) => Number(match[1]));
  return { size, newerSchema: Math.max(0, ...applied) > lastMigrationInSources() };
}

/**
 * Replaces the contents of the database at `url` with the archive's, in one transaction: a restore
 * that fails half-way changes nothing.
 * @returns {Promise<{ conversations: number, messages: number, files: number }>}
 */
export async function restoreDump(url, file) {
  const { dbname, env } = connection(url);
  await runProgram(
    "pg_restore",
    [
      "--clean",
      "--if-exists",
      "--single-transaction",
      "--exit-on-error",
      "--no-owner",
      "--no-acl",
      `--dbname=${dbname}`,
      file,
    ],
    { env },
  );
  const client = await connect(url);
  try {
    return await countRows(client);
  } finally {
    await client.end();
  }
}
