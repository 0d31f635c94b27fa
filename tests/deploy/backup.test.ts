import { spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import Database from "better-sqlite3";
import { afterEach, describe, expect, it } from "vitest";
import { DB_FILENAME, type Db, openDb, sqliteConnection } from "@/lib/db/client";
import { createConversation } from "@/lib/db/conversations";
import { findFile, insertFile } from "@/lib/db/files";
import { insertMessage, listMessages } from "@/lib/db/messages";
import { appendRunEvent, createRun, finishRun } from "@/lib/db/runs";
import { runNodeScript } from "./support/run-script";

/** `npm run backup` / `npm run restore` (scripts/backup.mjs, scripts/restore.mjs), run as child processes. */

const dirs: string[] = [];
const open: Db[] = [];

function tempDir(prefix: string): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `ollama-web-${prefix}-`));
  dirs.push(dir);
  return dir;
}

async function openData(dir: string): Promise<Db> {
  const db = await openDb(path.join(dir, DB_FILENAME));
  open.push(db);
  return db;
}

afterEach(() => {
  for (const db of open.splice(0)) if (sqliteConnection(db).open) sqliteConnection(db).close();
  for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

type Row = Record<string, unknown>;

/** A BLOB as a string: compared exactly, and much faster than a deep comparison of Buffers. */
const blobAsText = (row: Row): Row =>
  Object.fromEntries(
    Object.entries(row).map(([key, value]) => [
      key,
      Buffer.isBuffer(value) ? `blob:${value.toString("base64")}` : value,
    ]),
  );

/**
 * Every row of every table, in storage order: what "the same database" means here. The library's
 * full-text index (`file_chunks_grams` and its shadow tables, some without rowid) is left out: it is
 * made from `file_chunks`, which is compared.
 */
function dumpTables(file: string): Record<string, Row[]> {
  const sqlite = new Database(file, { readonly: true, fileMustExist: true });
  try {
    const tables = sqlite
      .prepare(
        "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name NOT LIKE 'file_chunks_grams%' ORDER BY name",
      )
      .pluck()
      .all() as string[];
    return Object.fromEntries(
      tables.map((table) => [
        table,
        (sqlite.prepare(`SELECT * FROM "${table}" ORDER BY rowid`).all() as Row[]).map(blobAsText),
      ]),
    );
  } finally {
    sqlite.close();
  }
}

function withoutConversation(dump: Record<string, Row[]>, conversationId: string): Record<string, Row[]> {
  return Object.fromEntries(
    Object.entries(dump).map(([table, rows]) => [
      table,
      rows.filter(
        (row) => row.conversation_id !== conversationId && !(table === "conversations" && row.id === conversationId),
      ),
    ]),
  );
}

interface Seeded {
  conversations: { id: string; messages: string[]; files: { id: string; bytes: Buffer }[] }[];
}

/** Conversations with messages (one from a finished run with events) and binary files. */
async function seed(db: Db): Promise<Seeded> {
  const seeded: Seeded = { conversations: [] };
  for (let c = 0; c < 3; c++) {
    const conversation = await createConversation(db, { title: `Backup test ${c} — ünïcødé 🚀`, ownerId: null });
    const messages = [`Question ${c}: what is in \u0000 a NUL?`, `Follow-up ${c}\nwith\nlines`];
    for (const content of messages) await insertMessage(db, { conversationId: conversation.id, role: "user", content });
    const run = await createRun(db, { conversationId: conversation.id, mode: "native", model: "llama3.2:latest" });
    const call = {
      type: "tool_call",
      iteration: 1,
      callId: "c1",
      tool: "web_search",
      args: {},
      seq: 1,
      at: 0,
    } as const;
    await appendRunEvent(db, { runId: run.id, seq: 1, event: { event: "step", data: call } });
    const answer = (await finishRun(db, {
      runId: run.id,
      status: "complete",
      iterations: 2,
      inputTokens: 120,
      outputTokens: 45,
      answer: `**Answer ${c}**`,
    }))!;
    const files: { id: string; bytes: Buffer }[] = [];
    for (const f of [0, 1]) {
      // Random bytes, so neither SQLite nor anything else can make them equal by accident.
      const bytes = randomBytes(256 * 1024 + c * 1000 + f);
      const info = await insertFile(db, {
        conversationId: conversation.id,
        origin: f === 0 ? "upload" : "fetch",
        filename: `paper-${c}-${f}.pdf`,
        mime: "application/pdf",
        bytes,
        pageCount: 3,
        sourceUrl: f === 0 ? null : `https://example.org/${c}.pdf`,
      });
      files.push({ id: info.id, bytes });
    }
    seeded.conversations.push({ id: conversation.id, messages: [...messages, answer.content], files });
  }
  return seeded;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("npm run backup and npm run restore", () => {
  it("backs up a database the app is writing to as one consistent snapshot, and restores every conversation, message and file byte for byte", async () => {
    const liveDir = tempDir("live");
    const db = await openData(liveDir);
    // Like a busy server between checkpoints: everything so far is only in the -wal, so a plain
    // copy of ollama-web.sqlite would miss it; the backup has to read through SQLite.
    sqliteConnection(db).pragma("wal_autocheckpoint = 0");
    const seeded = await seed(db);
    const live = await createConversation(db, { title: "Written during the backup", ownerId: null });
    expect(fs.statSync(path.join(liveDir, `${DB_FILENAME}-wal`)).size).toBeGreaterThan(1024 * 1024);
    const before = dumpTables(path.join(liveDir, DB_FILENAME));

    const backupDir = tempDir("backups");
    const backupFile = path.join(backupDir, "nightly.sqlite");
    const backup = runNodeScript("backup.mjs", [backupFile], { DATA_DIR: liveDir });
    let finished = false;
    void backup.finally(() => {
      finished = true;
    });
    const written: string[] = [];
    while (!finished) {
      const content = `written during the backup #${written.length}`;
      await insertMessage(db, { conversationId: live.id, role: "user", content });
      written.push(content);
      await sleep(1);
    }
    const result = await backup;
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    expect(written.length).toBeGreaterThan(0);
    expect(result.stdout).toContain(backupFile);
    expect(result.stdout).toMatch(/: 4 conversations, \d+ messages, 6 files\./);
    expect(fs.statSync(backupFile).mode & 0o777).toBe(0o600);
    // One self-contained file: nothing beside it that a copy to another machine could leave behind.
    expect(fs.readdirSync(backupDir)).toEqual(["nightly.sqlite"]);

    const backedUp = dumpTables(backupFile);
    // Everything stored before the backup started is in it, column for column and byte for byte.
    expect(withoutConversation(backedUp, live.id)).toEqual(withoutConversation(before, live.id));
    // The writes made meanwhile are a snapshot: the first k of them, not a random subset, and the
    // conversation row changed in the same transactions agrees with them.
    const liveMessages = (backedUp.messages ?? []).filter((row) => row.conversation_id === live.id);
    expect(liveMessages.map((row) => row.content)).toEqual(written.slice(0, liveMessages.length));
    const liveRow = backedUp.conversations?.find((row) => row.id === live.id);
    expect(liveRow?.updated_at).toBe(liveMessages.at(-1)?.created_at ?? live.updatedAt);

    const restoredDir = tempDir("restored");
    const restore = await runNodeScript("restore.mjs", [backupFile], { DATA_DIR: restoredDir });
    expect(restore.stderr).toBe("");
    expect(restore.code).toBe(0);
    expect(restore.stdout).toMatch(/: 4 conversations, \d+ messages, 6 files\./);
    const restoredFile = path.join(restoredDir, DB_FILENAME);
    expect(dumpTables(restoredFile)).toEqual(backedUp);

    // And the app opens it (migrations have nothing to do) and finds everything through its queries.
    const restored = await openData(restoredDir);
    for (const conversation of seeded.conversations) {
      expect((await listMessages(restored, { conversationId: conversation.id })).map((m) => m.content)).toEqual(
        conversation.messages,
      );
      for (const file of conversation.files) {
        const row = await findFile(restored, { conversationId: conversation.id, fileId: file.id });
        expect(row?.bytes.equals(file.bytes)).toBe(true);
      }
    }
  });

  it("writes into a directory under a time-stamped name, and refuses to overwrite a file without --force", async () => {
    const liveDir = tempDir("live");
    await seed(await openData(liveDir));
    const backupDir = tempDir("backups");

    const intoDir = await runNodeScript("backup.mjs", [backupDir], { DATA_DIR: liveDir });
    expect(intoDir.code).toBe(0);
    const [named] = fs.readdirSync(backupDir);
    expect(named).toMatch(/^ollama-web-\d{4}-\d\d-\d\dT\d\d-\d\d-\d\dZ\.sqlite$/);

    const existing = path.join(backupDir, "existing.sqlite");
    fs.writeFileSync(existing, "precious");
    const refused = await runNodeScript("backup.mjs", [existing], { DATA_DIR: liveDir });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain("already exists. Pass --force to replace it.");
    expect(fs.readFileSync(existing, "utf8")).toBe("precious");

    const forced = await runNodeScript("backup.mjs", [existing, "--force"], { DATA_DIR: liveDir });
    expect(forced.code).toBe(0);
    expect(dumpTables(existing).conversations).toHaveLength(3);
    // No leftovers of the write-then-rename.
    expect(fs.readdirSync(backupDir).sort()).toEqual(["existing.sqlite", named].sort());
  });

  it("says so when DATA_DIR holds no database, instead of backing up an empty one", async () => {
    const result = await runNodeScript("backup.mjs", [path.join(tempDir("backups"), "b.sqlite")], {
      DATA_DIR: tempDir("empty"),
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("No database at");
  });

  it("restore refuses a file that is not an ollama-web database and leaves the data untouched", async () => {
    const dataDir = tempDir("data");
    const db = await openData(dataDir);
    await seed(db);
    sqliteConnection(db).close();
    const original = dumpTables(path.join(dataDir, DB_FILENAME));
    const listing = fs.readdirSync(dataDir).sort();
    const inputs = tempDir("inputs");

    const junk = path.join(inputs, "notes.txt");
    fs.writeFileSync(junk, "these are not the conversations you are looking for\n".repeat(200));
    const notSqlite = await runNodeScript("restore.mjs", [junk], { DATA_DIR: dataDir });
    expect(notSqlite.code).toBe(1);
    expect(notSqlite.stderr).toContain("is not an SQLite database");

    const otherApp = path.join(inputs, "other.sqlite");
    const other = new Database(otherApp);
    other.exec("CREATE TABLE conversations (id TEXT); CREATE TABLE notes (body TEXT)");
    other.close();
    const wrongSchema = await runNodeScript("restore.mjs", [otherApp], { DATA_DIR: dataDir });
    expect(wrongSchema.code).toBe(1);
    expect(wrongSchema.stderr).toContain("is not an ollama-web database (no messages, files table)");

    const missing = await runNodeScript("restore.mjs", [path.join(inputs, "nope.sqlite")], { DATA_DIR: dataDir });
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain("does not exist");

    expect(fs.readdirSync(dataDir).sort()).toEqual(listing);
    expect(dumpTables(path.join(dataDir, DB_FILENAME))).toEqual(original);
  });

  it("restore refuses a backup from a newer version of the app unless --force", async () => {
    const source = tempDir("source");
    const db = await openData(source);
    await seed(db);
    sqliteConnection(db)
      .prepare("INSERT INTO __drizzle_migrations (hash, created_at) VALUES ('future', ?)")
      .run(Date.now() * 2);
    sqliteConnection(db).close();

    const target = tempDir("target");
    const refused = await runNodeScript("restore.mjs", [path.join(source, DB_FILENAME)], { DATA_DIR: target });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain("comes from a newer version of ollama-web");
    expect(fs.readdirSync(target)).toEqual([]);
  });

  it("restore refuses to replace the data of a running server without --force; with it, keeps the replaced database and its WAL beside the new one", async () => {
    const backupSource = tempDir("source");
    const sourceDb = await openData(backupSource);
    await seed(sourceDb);
    sqliteConnection(sourceDb).close();
    const backupFile = path.join(tempDir("backups"), "b.sqlite");
    expect((await runNodeScript("backup.mjs", [backupFile], { DATA_DIR: backupSource })).code).toBe(0);

    // The data directory of a server that crashed mid-write: its last writes live only in the -wal.
    const dataDir = tempDir("data");
    const running = await openData(tempDir("running"));
    sqliteConnection(running).pragma("wal_autocheckpoint = 0");
    const oldConversation = await createConversation(running, {
      title: "Only in the replaced database",
      ownerId: null,
    });
    await insertMessage(running, { conversationId: oldConversation.id, role: "user", content: "kept in the WAL" });
    for (const suffix of ["", "-wal", "-shm"]) {
      fs.copyFileSync(sqliteConnection(running).name + suffix, path.join(dataDir, DB_FILENAME + suffix));
    }
    const target = path.join(dataDir, DB_FILENAME);
    const untouched = fs.readFileSync(target);
    // The server's pid file, naming a live process: this one.
    fs.writeFileSync(path.join(dataDir, "server.pid"), `${process.pid}\n`);

    const refused = await runNodeScript("restore.mjs", [backupFile], { DATA_DIR: dataDir });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(`ollama-web is running (PID ${process.pid}`);
    expect(refused.stderr).toContain("--force");
    expect(fs.readFileSync(target).equals(untouched)).toBe(true);

    const forced = await runNodeScript("restore.mjs", [backupFile, "--force"], { DATA_DIR: dataDir });
    expect(forced.stderr).toBe("");
    expect(forced.code).toBe(0);
    expect(forced.stdout).toContain("restart it now");
    expect(dumpTables(target).conversations).toHaveLength(3);

    const entries = fs.readdirSync(dataDir).sort();
    const kept = entries.find((name) => /^ollama-web\.sqlite\.before-restore-[\dTZ-]+$/.test(name));
    expect(kept).toBeDefined();
    // The stale -wal/-shm are gone from the restored database; the WAL went along with the old one.
    expect(entries).toEqual([DB_FILENAME, kept, `${kept}-wal`, "server.pid"].sort());
    const keptDump = dumpTables(path.join(dataDir, kept ?? ""));
    expect(keptDump.conversations?.map((row) => row.title)).toEqual(["Only in the replaced database"]);
    expect(keptDump.messages?.map((row) => row.content)).toEqual(["kept in the WAL"]);
  });

  it("restore goes ahead when the pid file is left over from a server that is gone", async () => {
    const source = tempDir("source");
    await seed(await openData(source));
    const dataDir = tempDir("data");
    const exited = spawnSync(process.execPath, ["-e", "console.log(process.pid)"], { encoding: "utf8" });
    fs.writeFileSync(path.join(dataDir, "server.pid"), exited.stdout);

    const result = await runNodeScript("restore.mjs", [path.join(source, DB_FILENAME)], { DATA_DIR: dataDir });
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    expect(result.stdout).not.toContain("replaced database");
    expect(dumpTables(path.join(dataDir, DB_FILENAME)).files).toHaveLength(6);
  });
});
