import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { openDb } from "./client";
import { getConversationDetail } from "./queries";
import { listRunEvents } from "./runs";

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

describe("upgrading a database of an earlier release", () => {
  it("cuts the error line earlier releases appended to failed answers, and nothing else", () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "ollama-web-upgrade-"));
    const file = path.join(dir, "old.sqlite");
    const old = openDb(file, { migrationsFolder: migrationsUpTo("0003_message_attachments") });
    const sql = old.$client;
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
    old.$client.close();

    const upgraded = openDb(file);
    const contents = getConversationDetail(upgraded, { id: "c1", ownerId: null }).messages.map((m) => m.content);
    expect(contents).toEqual([
      "Partial answer",
      "",
      "How to write **Error:** Ollama error: boom in Markdown",
      "Text\n\n**Error:** Ollama error: boom",
    ]);
    upgraded.$client.close();
  });

  it("gives stored interrupts ids, in order, and stored steps their time", () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "ollama-web-upgrade-"));
    const file = path.join(dir, "old.sqlite");
    const old = openDb(file, { migrationsFolder: migrationsUpTo("0003_message_attachments") });
    const sql = old.$client;
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
    old.$client.close();

    const upgraded = openDb(file);
    const [step, end] = listRunEvents(upgraded, { runId: "r1" });
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
    upgraded.$client.close();
  });

  it("reads the runs of an earlier release as answers, none as the tool loop's draft", () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "ollama-web-upgrade-"));
    const file = path.join(dir, "old.sqlite");
    const old = openDb(file, { migrationsFolder: migrationsUpTo("0004_clean_answers_and_interrupt_ids") });
    const sql = old.$client;
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
    old.$client.close();

    const upgraded = openDb(file);
    const [message] = getConversationDetail(upgraded, { id: "c1", ownerId: null }).messages;
    expect(message?.run).toMatchObject({ status: "complete", fallback: false, error: null });
    upgraded.$client.close();
  });
});
