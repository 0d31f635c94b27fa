import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import Database from "better-sqlite3";
import { drizzle } from "drizzle-orm/better-sqlite3";
import { migrate } from "drizzle-orm/better-sqlite3/migrator";
import { afterEach, describe, expect, it } from "vitest";
import { cutPassages } from "@/lib/library/passages";
import { parseQuery } from "@/lib/library/query";
import { openDb, sqliteConnection } from "./client";
import { getConversationDetail } from "./conversation-detail";
import { getConversation } from "./conversations";
import { claimFilesToIndex, searchLibrary, writeFileIndex } from "./library";
import { createRun, listRunEvents } from "./runs";

const MIGRATIONS = path.join(process.cwd(), "drizzle");
let dir: string;

afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

/** The migrations as they were up to `lastTag`: what an older release's database has applied. */
function migrationsUpTo(lastTag: string): string {
  const folder = path.join(dir, "drizzle");
  fs.mkdirSync(path.join(folder, "meta"), { recursive: true });
  const journal = JSON.parse(fs.readFileSync(path.join(MIGRATIONS, "meta", "_journal.json"), "utf8")) as {
    entries: { tag: string }[];
  };
  const last = journal.entries.findIndex((entry) => entry.tag === lastTag);
  journal.entries = journal.entries.slice(0, last + 1);
  for (const entry of journal.entries) {
    fs.copyFileSync(path.join(MIGRATIONS, `${entry.tag}.sql`), path.join(folder, `${entry.tag}.sql`));
  }
  fs.writeFileSync(path.join(folder, "meta", "_journal.json"), JSON.stringify(journal));
  return folder;
}

/** A database as an older release left it: its migrations up to `lastTag`, nothing of this release run on it. */
function openOld(file: string, lastTag: string): Database.Database {
  const sqlite = new Database(file);
  migrate(drizzle(sqlite), { migrationsFolder: migrationsUpTo(lastTag) });
  return sqlite;
}

describe("upgrading a database of an earlier release", () => {
  it("cuts the error line earlier releases appended to failed answers, and nothing else", async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "ollama-web-upgrade-"));
    const file = path.join(dir, "old.sqlite");
    const sql = openOld(file, "0003_message_attachments");
    sql.prepare("INSERT INTO conversations (id, title, created_at, updated_at) VALUES ('c1', 't', 1, 1)").run();
    const run = sql.prepare(
      "INSERT INTO runs (id, conversation_id, status, mode, model, started_at, error) VALUES (?, 'c1', ?, 'native', 'm', 1, ?)",
    );
    const message = sql.prepare(
      "INSERT INTO messages (id, conversation_id, role, content, status, run_id, created_at) VALUES (?, 'c1', 'assistant', ?, ?, ?, ?)",
    );
    run.run("r1", "error", "Ollama error: boom");
    message.run("m1", "Partial answer\n\n**Error:** Ollama error: boom", "error", "r1", 1);
    run.run("r2", "error", "Ollama error: boom");
    message.run("m2", "**Error:** Ollama error: boom", "error", "r2", 2);
    run.run("r3", "complete", null);
    message.run("m3", "How to write **Error:** Ollama error: boom in Markdown", "complete", "r3", 3);
    run.run("r4", "error", "another failure");
    message.run("m4", "Text\n\n**Error:** Ollama error: boom", "error", "r4", 4);
    sql.close();

    const upgraded = await openDb(file);
    const contents = (await getConversationDetail(upgraded, { id: "c1", ownerId: null })).messages.map(
      (m) => m.content,
    );
    expect(contents).toEqual([
      "Partial answer",
      "",
      "How to write **Error:** Ollama error: boom in Markdown",
      "Text\n\n**Error:** Ollama error: boom",
    ]);
    sqliteConnection(upgraded).close();
  });

  it("gives stored interrupts ids, in order, and stored steps their time", async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "ollama-web-upgrade-"));
    const file = path.join(dir, "old.sqlite");
    const sql = openOld(file, "0003_message_attachments");
    sql.prepare("INSERT INTO conversations (id, title, created_at, updated_at) VALUES ('c1', 't', 1, 1)").run();
    sql
      .prepare(
        "INSERT INTO runs (id, conversation_id, status, mode, model, started_at) VALUES ('r1', 'c1', 'complete', 'native', 'm', 1)",
      )
      .run();
    const event = sql.prepare("INSERT INTO run_events (run_id, seq, type, data, created_at) VALUES ('r1', ?, ?, ?, ?)");
    event.run(1, "step", JSON.stringify({ seq: 1, iteration: 2, type: "interrupt", messages: ["yes", "yes"] }), 500);
    const usage = { inputTokens: 1, outputTokens: 1, totalTokens: 2 };
    const done = { messageId: "a1", iterations: 2, usage, elapsedMs: 9, pendingInterrupts: ["later"] };
    event.run(2, "done", JSON.stringify(done), 600);
    sql.close();

    const upgraded = await openDb(file);
    const [step, end] = await listRunEvents(upgraded, { runId: "r1" });
    expect(step).toMatchObject({
      event: "step",
      data: { type: "interrupt", at: 500, interrupts: [{ text: "yes" }, { text: "yes" }] },
    });
    expect(step?.data).not.toHaveProperty("messages");
    const ids = step?.event === "step" && step.data.type === "interrupt" ? step.data.interrupts.map((i) => i.id) : [];
    expect(new Set(ids).size).toBe(2);
    expect(end).toMatchObject({
      event: "done",
      data: { pendingInterrupts: [{ id: expect.any(String), text: "later" }] },
    });
    sqliteConnection(upgraded).close();
  });

  it("reads the runs of an earlier release as answers, none as the tool loop's draft", async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "ollama-web-upgrade-"));
    const file = path.join(dir, "old.sqlite");
    const sql = openOld(file, "0004_clean_answers_and_interrupt_ids");
    sql.prepare("INSERT INTO conversations (id, title, created_at, updated_at) VALUES ('c1', 't', 1, 1)").run();
    sql
      .prepare(
        "INSERT INTO runs (id, conversation_id, status, mode, model, started_at) VALUES ('r1', 'c1', 'complete', 'native', 'm', 1)",
      )
      .run();
    sql
      .prepare(
        "INSERT INTO messages (id, conversation_id, role, content, status, run_id, created_at) VALUES ('m1', 'c1', 'assistant', 'A', 'complete', 'r1', 2)",
      )
      .run();
    sql.close();

    const upgraded = await openDb(file);
    const [message] = (await getConversationDetail(upgraded, { id: "c1", ownerId: null })).messages;
    expect(message?.run).toMatchObject({ status: "complete", fallback: false, error: null });
    sqliteConnection(upgraded).close();
  });

  it("turns each earlier conversation into one branch: questions, interrupts and answers in their order", async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "ollama-web-upgrade-"));
    const file = path.join(dir, "old.sqlite");
    const sql = openOld(file, "0004_clean_answers_and_interrupt_ids");
    sql.prepare("INSERT INTO conversations (id, title, created_at, updated_at) VALUES ('c1', 't', 1, 1)").run();
    const run = sql.prepare(
      "INSERT INTO runs (id, conversation_id, status, mode, model, started_at, partial_answer) VALUES (?, 'c1', ?, 'native', 'm', ?, ?)",
    );
    const message = sql.prepare(
      "INSERT INTO messages (id, conversation_id, role, content, run_id, created_at) VALUES (?, 'c1', ?, ?, ?, ?)",
    );
    message.run("q1", "user", "first", null, 10);
    run.run("r1", "complete", 10, null);
    message.run("a1", "assistant", "one", "r1", 20);
    message.run("q2", "user", "second", null, 30);
    run.run("r2", "complete", 30, null);
    message.run("i2", "user", "and also", "r2", 35);
    message.run("a2", "assistant", "two", "r2", 40);
    // A run the old release left going: recovered after the upgrade, on the same branch.
    message.run("q3", "user", "third", null, 50);
    run.run("r3", "running", 50, "half");
    sql.close();

    const upgraded = await openDb(file);
    const { messages } = await getConversationDetail(upgraded, { id: "c1", ownerId: null });
    expect(messages.map((m) => [m.id, m.parentId])).toEqual([
      ["q1", null],
      ["a1", "q1"],
      ["q2", "a1"],
      ["i2", "q2"],
      ["a2", "q2"],
      ["q3", "a2"],
      [expect.any(String), "q3"],
    ]);
    expect(messages.at(-1)).toMatchObject({ role: "assistant", content: "half", status: "interrupted" });
    expect(messages.every((m) => m.versions.length === 1)).toBe(true);
    const questions = sqliteConnection(upgraded).prepare("SELECT id, question_id FROM runs ORDER BY id").all();
    expect(questions).toEqual([
      { id: "r1", question_id: "q1" },
      { id: "r2", question_id: "q2" },
      { id: "r3", question_id: "q3" },
    ]);
    sqliteConnection(upgraded).close();
  });

  it("gives earlier conversations empty settings: they keep answering with the model's defaults", async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "ollama-web-upgrade-"));
    const file = path.join(dir, "old.sqlite");
    const sql = openOld(file, "0009_held_interrupts");
    sql.prepare("INSERT INTO conversations (id, title, created_at, updated_at) VALUES ('c1', 't', 1, 1)").run();
    sql.close();

    const upgraded = await openDb(file);
    expect((await getConversationDetail(upgraded, { id: "c1", ownerId: null })).conversation.settings).toEqual({});
    sqliteConnection(upgraded).close();
  });

  it("an earlier conversation has every tool group on, and no MCP server is configured", async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "ollama-web-upgrade-"));
    const file = path.join(dir, "old.sqlite");
    const sql = openOld(file, "0010_chat_settings");
    sql.prepare("INSERT INTO conversations (id, title, created_at, updated_at) VALUES ('c1', 't', 1, 1)").run();
    sql.close();

    const upgraded = await openDb(file);
    expect((await getConversation(upgraded, { id: "c1", ownerId: null })).disabledToolGroups).toEqual([]);
    expect(sqliteConnection(upgraded).prepare("SELECT count(*) AS n FROM mcp_servers").get()).toEqual({ n: 0 });
    sqliteConnection(upgraded).close();
  });

  it("an earlier conversation is neither pinned nor archived", async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "ollama-web-upgrade-"));
    const file = path.join(dir, "old.sqlite");
    const sql = openOld(file, "0011_mcp_servers");
    sql.prepare("INSERT INTO conversations (id, title, created_at, updated_at) VALUES ('c1', 't', 1, 1)").run();
    sql.close();

    const upgraded = await openDb(file);
    const conversation = await getConversation(upgraded, { id: "c1", ownerId: null });
    expect([conversation.pinned, conversation.archived]).toEqual([false, false]);
    sqliteConnection(upgraded).close();
  });

  it("a run an earlier release left running is recovered after the upgrade, owned by no instance, and its conversation runs again", async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "ollama-web-upgrade-"));
    const file = path.join(dir, "old.sqlite");
    const sql = openOld(file, "0012_conversation_pin_archive");
    sql.prepare("INSERT INTO conversations (id, title, created_at, updated_at) VALUES ('c1', 't', 1, 1)").run();
    sql
      .prepare(
        "INSERT INTO runs (id, conversation_id, status, mode, model, started_at, partial_answer) VALUES ('r1', 'c1', 'running', 'native', 'm', 1, 'half')",
      )
      .run();
    sql.close();

    const upgraded = await openDb(file);
    const sqlite = sqliteConnection(upgraded);
    expect(sqlite.prepare("SELECT status, instance_id FROM runs WHERE id = 'r1'").get()).toEqual({
      status: "interrupted",
      instance_id: null,
    });
    expect(sqlite.prepare("SELECT count(*) AS n FROM instances").get()).toEqual({ n: 0 });
    expect((await createRun(upgraded, { conversationId: "c1", mode: "native", model: "m" })).status).toBe("running");
    sqlite.close();
  });
  it("the files the trigram index of an earlier release held are indexed again, found by their words", async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "ollama-web-upgrade-"));
    const file = path.join(dir, "old.sqlite");
    const sql = openOld(file, "0017_library_projects_memory");
    sql.prepare("INSERT INTO conversations (id, title, created_at, updated_at) VALUES ('c1', 't', 1, 1)").run();
    sql
      .prepare(
        "INSERT INTO files (id, conversation_id, origin, filename, mime, size, sha256, bytes, indexed_at, created_at) VALUES ('f1', 'c1', 'upload', 'a.txt', 'text/plain', 14, 'x', ?, 1, 1)",
      )
      .run(Buffer.from("東京 harbour fees"));
    sql
      .prepare("INSERT INTO file_chunks (file_id, seq, text, folded, start) VALUES ('f1', 0, ?, ?, 0)")
      .run("東京 harbour fees", "東京 harbour fees");
    sql.close();

    const upgraded = await openDb(file);
    expect(await claimFilesToIndex(upgraded, { claimer: "i1", limit: 10 })).toEqual([{ id: "f1", filename: "a.txt" }]);
    await writeFileIndex(upgraded, "f1", cutPassages("東京 harbour fees"));
    const { hits } = await searchLibrary(upgraded, {
      scope: { conversationId: "c1" },
      terms: parseQuery("東京 harbour"),
      limit: 5,
      offset: 0,
    });
    expect(hits.map((hit) => hit.fileId)).toEqual(["f1"]);
    sqliteConnection(upgraded).close();
  });

  it("an earlier memory names no run, and a memory from a run outlives the run's conversation", async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "ollama-web-upgrade-"));
    const file = path.join(dir, "old.sqlite");
    const sql = openOld(file, "0018_library_short_terms");
    sql.prepare("INSERT INTO conversations (id, title, created_at, updated_at) VALUES ('c1', 't', 1, 1)").run();
    sql
      .prepare(
        "INSERT INTO memories (id, text, conversation_id, created_at, updated_at) VALUES ('m1', 'I work in metric units.', 'c1', 1, 1)",
      )
      .run();
    sql.close();

    const upgraded = await openDb(file);
    const sqlite = sqliteConnection(upgraded);
    expect(sqlite.prepare("SELECT run_id FROM memories WHERE id = 'm1'").get()).toEqual({ run_id: null });
    const run = await createRun(upgraded, { conversationId: "c1", mode: "native", model: "m" });
    sqlite.prepare("UPDATE memories SET run_id = ? WHERE id = 'm1'").run(run.id);
    sqlite.prepare("INSERT INTO memory_dismissals (id, run_id, text, created_at) VALUES ('d1', ?, 'x', 1)").run(run.id);
    // The column added to the old table lets its run go with the conversation, as a new table's would.
    sqlite.prepare("DELETE FROM conversations WHERE id = 'c1'").run();
    expect(sqlite.prepare("SELECT run_id, conversation_id FROM memories WHERE id = 'm1'").get()).toEqual({
      run_id: null,
      conversation_id: null,
    });
    expect(sqlite.prepare("SELECT count(*) AS n FROM memory_dismissals").get()).toEqual({ n: 0 });
    sqlite.close();
  });

  it("files indexed with the earlier order of CJK tokens are indexed again, a longer Japanese term found where it stands whole", async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "ollama-web-upgrade-"));
    const file = path.join(dir, "old.sqlite");
    const sql = openOld(file, "0019_memory_runs_dismissals");
    sql.prepare("INSERT INTO conversations (id, title, created_at, updated_at) VALUES ('c1', 't', 1, 1)").run();
    sql
      .prepare(
        "INSERT INTO files (id, conversation_id, origin, filename, mime, size, sha256, bytes, indexed_at, created_at) VALUES ('f1', 'c1', 'upload', 'a.txt', 'text/plain', 12, 'x', ?, 1, 1)",
      )
      .run(Buffer.from("東京都の人口"));
    // The earlier order: a character before its pair with the one before it.
    sql
      .prepare("INSERT INTO file_chunks (file_id, seq, text, folded, grams, start) VALUES ('f1', 0, ?, ?, ?, 0)")
      .run("東京都の人口", "東京都の人口", "東 京 東京 都 京都 の 都の 人 の人 口 人口");
    sql.close();

    const upgraded = await openDb(file);
    expect(await claimFilesToIndex(upgraded, { claimer: "i1", limit: 10 })).toEqual([{ id: "f1", filename: "a.txt" }]);
    await writeFileIndex(upgraded, "f1", cutPassages("東京都の人口"));
    const { hits } = await searchLibrary(upgraded, {
      scope: { conversationId: "c1" },
      terms: parseQuery("東京都"),
      limit: 5,
      offset: 0,
    });
    expect(hits.map((hit) => hit.fileId)).toEqual(["f1"]);
    sqliteConnection(upgraded).close();
  });
});
