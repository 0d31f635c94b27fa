import { eq } from "drizzle-orm";
import { describe, expect, it, vi } from "vitest";
import { chosenStore, resetConfigForTests } from "@/lib/env-config";
import { AppError } from "@/lib/errors";
import { DEFAULT_TITLE } from "@/lib/text/conversation-title";
import { type TempDb, tempDbForEachTest } from "@/tests/support/temp-db";
import { type Db, openDb, recoverInterruptedRuns, sqliteConnection } from "./client";
import { getConversationDetail } from "./conversation-detail";
import {
  createConversation,
  deleteConversation,
  getConversation,
  listConversations,
  selectBranch,
  setActiveLeaf,
  updateConversation,
} from "./conversations";
import { listHeldInterrupts, storeInterrupt } from "./interrupts";
import { insertMessage } from "./messages";
import { appendRunEvent, createRun, finishRun, listRunEvents, savePartialAnswer } from "./runs";
import { conversations, files, messages, runEvents, runs } from "./schema";

const nothingHere = { instanceId: null, get: () => undefined };

let ctx: TempDb;
let db: Db;
tempDbForEachTest((temp) => {
  ctx = temp;
  db = temp.db;
});

async function addFile(conversationId: string) {
  await db.insert(files).values({
    id: crypto.randomUUID(),
    conversationId,
    origin: "upload",
    filename: "a.pdf",
    mime: "application/pdf",
    size: 3,
    sha256: "x",
    bytes: Buffer.from("pdf"),
    createdAt: Date.now(),
  });
}

/** SQLite's connection settings (PostgreSQL's setup: lib/db/schema-pg.test.ts, lib/db/postgres.ts). */
describe.runIf(chosenStore() === "sqlite")("SQLite's setup", () => {
  it("opens in WAL mode with foreign keys on and a busy timeout", () => {
    expect(sqliteConnection(db).pragma("journal_mode", { simple: true })).toBe("wal");
    expect(sqliteConnection(db).pragma("foreign_keys", { simple: true })).toBe(1);
    expect(Number(sqliteConnection(db).pragma("busy_timeout", { simple: true }))).toBeGreaterThan(0);
  });

  it("waits for another connection's lock only DB_BUSY_TIMEOUT_MS, short by default (a waiting write blocks the server)", async () => {
    expect(Number(sqliteConnection(db).pragma("busy_timeout", { simple: true }))).toBe(300);
    vi.stubEnv("DB_BUSY_TIMEOUT_MS", "120");
    resetConfigForTests();
    try {
      const other = await openDb(ctx.file);
      expect(Number(sqliteConnection(other).pragma("busy_timeout", { simple: true }))).toBe(120);
      sqliteConnection(other).close();
    } finally {
      vi.unstubAllEnvs();
      resetConfigForTests();
    }
  });

  it("applies the drizzle migrations, creating every table", () => {
    const tables = sqliteConnection(db)
      .prepare("select name from sqlite_master where type = 'table' order by name")
      .all()
      .map((row) => (row as { name: string }).name);
    expect(tables).toEqual(
      expect.arrayContaining(["conversations", "messages", "runs", "run_events", "files", "__drizzle_migrations"]),
    );
  });
});

describe("database setup", () => {
  it("reopening an existing database applies nothing twice", async () => {
    await createConversation(db, { ownerId: null, title: "kept" });
    const again = await ctx.reopen();
    expect((await listConversations(again, { ownerId: null })).conversations.map((c) => c.title)).toEqual(["kept"]);
  });
});

describe("crash recovery", () => {
  it("marks a run left running as interrupted at the next start, keeping its partial answer", async () => {
    const conversation = await createConversation(db, { ownerId: null });
    const run = await createRun(db, { conversationId: conversation.id, mode: "plain", model: "m" });
    await savePartialAnswer(db, { runId: run.id, text: "half an answ" });

    const reopened = await ctx.reopen();
    const [stored] = await reopened.select().from(runs).where(eq(runs.id, run.id));
    expect(stored?.status).toBe("interrupted");
    expect(stored?.finishedAt).not.toBeNull();
    const detail = await getConversationDetail(reopened, { ownerId: null, id: conversation.id });
    expect(detail.activeRunId).toBeNull();
    expect(detail.messages).toHaveLength(1);
    expect(detail.messages[0]).toMatchObject({ role: "assistant", status: "interrupted", content: "half an answ" });
    expect(detail.messages[0]?.run?.status).toBe("interrupted");
  });
});

describe("recovering a dead instance's runs", () => {
  it("recovers only the runs named, each stored as interrupted once even when two survivors race for it", async () => {
    const [a, b] = [await createConversation(db, { ownerId: null }), await createConversation(db, { ownerId: null })];
    const dead = await createRun(db, { conversationId: a.id, mode: "plain", model: "m" });
    const alive = await createRun(db, { conversationId: b.id, mode: "plain", model: "m" });
    await savePartialAnswer(db, { runId: dead.id, text: "half" });

    const counts = await Promise.all([
      recoverInterruptedRuns(db, { runIds: [dead.id] }),
      recoverInterruptedRuns(db, { runIds: [dead.id] }),
    ]);
    expect(counts.sort()).toEqual([0, 1]);
    const answers = await db.select().from(messages).where(eq(messages.runId, dead.id));
    expect(answers.map((message) => [message.status, message.content])).toEqual([["interrupted", "half"]]);
    const [stillRunning] = await db.select().from(runs).where(eq(runs.id, alive.id));
    expect(stillRunning?.status).toBe("running");
    expect(await recoverInterruptedRuns(db, { runIds: [] })).toBe(0);
  });
});

describe("one running run per conversation", () => {
  it("the database refuses a second running run in a conversation until the first ends", async () => {
    const conversation = await createConversation(db, { ownerId: null });
    const other = await createConversation(db, { ownerId: null });
    const first = await createRun(db, { conversationId: conversation.id, mode: "plain", model: "m" });
    await expect(createRun(db, { conversationId: conversation.id, mode: "plain", model: "m" })).rejects.toMatchObject({
      code: "conflict:run_active",
    });
    // Another conversation runs meanwhile; the refused run left nothing behind.
    await createRun(db, { conversationId: other.id, mode: "plain", model: "m" });
    expect(await db.select().from(runs).where(eq(runs.conversationId, conversation.id))).toHaveLength(1);

    await finishRun(db, {
      runId: first.id,
      status: "complete",
      iterations: 1,
      inputTokens: 0,
      outputTokens: 0,
      answer: "a",
    });
    const next = await createRun(db, { conversationId: conversation.id, mode: "plain", model: "m" });
    expect(next.status).toBe("running");
  });
});

describe("held interrupts at a restart", () => {
  it("pending follow-ups of a run recovered at startup are kept as unsent", async () => {
    const conversation = await createConversation(db, { ownerId: null });
    const run = await createRun(db, { conversationId: conversation.id, mode: "native", model: "m" });
    const interrupt = { id: "i1", text: "and the prices too" };
    await storeInterrupt(db, { interrupt, conversationId: conversation.id, runId: run.id });
    expect(await listHeldInterrupts(db, { conversationId: conversation.id })).toMatchObject([
      { id: "i1", unsent: false },
    ]);

    const reopened = await ctx.reopen();
    expect(await listHeldInterrupts(reopened, { conversationId: conversation.id })).toEqual([
      { id: "i1", runId: run.id, text: "and the prices too", createdAt: expect.any(Number), unsent: true },
    ]);
  });
});

describe("deleting a conversation", () => {
  it("cascades to its messages, runs, run events and files", async () => {
    const conversation = await createConversation(db, { ownerId: null });
    const other = await createConversation(db, { ownerId: null });
    for (const id of [conversation.id, other.id]) {
      await insertMessage(db, { conversationId: id, role: "user", content: "hi" });
      const run = await createRun(db, { conversationId: id, mode: "plain", model: "m" });
      await appendRunEvent(db, { runId: run.id, seq: 1, event: { event: "answer", data: { status: "start" } } });
      await finishRun(db, {
        runId: run.id,
        status: "complete",
        iterations: 1,
        inputTokens: 1,
        outputTokens: 1,
        answer: "a",
      });
      await addFile(id);
    }
    await deleteConversation(db, { ownerId: null, id: conversation.id, runsHere: nothingHere });
    for (const table of [messages, runs, files] as const) {
      const rows = (await db.select().from(table)) as { conversationId: string }[];
      expect(rows.every((row) => row.conversationId === other.id)).toBe(true);
      expect(rows.length).toBeGreaterThan(0);
    }
    expect(await db.select().from(runEvents)).toHaveLength(1);
  });

  it("an unknown id is a not_found error", async () => {
    await expect(deleteConversation(db, { ownerId: null, id: "nope", runsHere: nothingHere })).rejects.toThrowError(
      expect.objectContaining({ code: "not_found:conversation" }),
    );
  });
});

describe("conversations", () => {
  it("lists newest first and pages with a cursor without gaps or repeats", async () => {
    const created = await Promise.all(
      Array.from({ length: 7 }, (_, i) => createConversation(db, { ownerId: null, title: `c${i}` })),
    );
    // Same timestamp for several rows: the cursor must still order them totally.
    await db.update(conversations).set({ updatedAt: 1000 });
    const seen: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await listConversations(db, { ownerId: null, cursor, limit: 3 });
      seen.push(...page.conversations.map((c) => c.id));
      cursor = page.nextCursor ?? undefined;
    } while (cursor);
    expect(new Set(seen).size).toBe(created.length);
    expect(seen).toHaveLength(created.length);
  });

  it("orders by last activity: a new message moves a conversation to the top", async () => {
    const older = await createConversation(db, { ownerId: null, title: "older" });
    const newer = await createConversation(db, { ownerId: null, title: "newer" });
    await db
      .update(conversations)
      .set({ updatedAt: older.updatedAt - 10_000 })
      .where(eq(conversations.id, older.id));
    await db
      .update(conversations)
      .set({ updatedAt: newer.updatedAt - 5000 })
      .where(eq(conversations.id, newer.id));
    expect((await listConversations(db, { ownerId: null })).conversations[0]?.id).toBe(newer.id);
    await insertMessage(db, { conversationId: older.id, role: "user", content: "bump" });
    expect((await listConversations(db, { ownerId: null })).conversations[0]?.id).toBe(older.id);
  });

  it("searches titles and message contents, treating % and _ literally", async () => {
    const byTitle = await createConversation(db, { ownerId: null, title: "Tokyo trip" });
    const byContent = await createConversation(db, { ownerId: null, title: "misc" });
    await insertMessage(db, { conversationId: byContent.id, role: "assistant", content: "The tokyo tower is 333 m" });
    const percent = await createConversation(db, { ownerId: null, title: "100% done" });
    await createConversation(db, { ownerId: null, title: "100 done" });
    expect((await listConversations(db, { ownerId: null, q: "tokyo" })).conversations.map((c) => c.id).sort()).toEqual(
      [byTitle.id, byContent.id].sort(),
    );
    expect((await listConversations(db, { ownerId: null, q: "100%" })).conversations.map((c) => c.id)).toEqual([
      percent.id,
    ]);
    expect((await listConversations(db, { ownerId: null, q: "_" })).conversations).toEqual([]);
  });

  it("rejects a malformed cursor as a bad request", async () => {
    await expect(listConversations(db, { ownerId: null, cursor: "garbage" })).rejects.toThrow(AppError);
  });

  it("renames, changes the model, and falls back to the default title for a blank one", async () => {
    const conversation = await createConversation(db, { ownerId: null, title: "  " });
    expect(conversation.title).toBe(DEFAULT_TITLE);
    await updateConversation(db, { ownerId: null, id: conversation.id, title: "Renamed", model: "qwen3:8b" });
    expect(await getConversation(db, { ownerId: null, id: conversation.id })).toMatchObject({
      title: "Renamed",
      model: "qwen3:8b",
    });
  });
});

describe("runs", () => {
  it("finishing a run stores the assistant message and its usage, and clears the partial answer", async () => {
    const conversation = await createConversation(db, { ownerId: null });
    const run = await createRun(db, { conversationId: conversation.id, mode: "plain", model: "m" });
    await savePartialAnswer(db, { runId: run.id, text: "part" });
    await appendRunEvent(db, { runId: run.id, seq: 1, event: { event: "answer", data: { status: "start" } } });
    await appendRunEvent(db, { runId: run.id, seq: 2, event: { event: "answer", data: { status: "done" } } });
    const message = await finishRun(db, {
      runId: run.id,
      status: "stopped",
      iterations: 1,
      inputTokens: 10,
      outputTokens: 5,
      answer: "partial",
    });
    expect(message).toMatchObject({ role: "assistant", status: "stopped", content: "partial", runId: run.id });
    const detail = await getConversationDetail(db, { ownerId: null, id: conversation.id });
    expect(detail.messages[0]?.run).toMatchObject({
      status: "stopped",
      usage: { inputTokens: 10, outputTokens: 5, totalTokens: 15 },
    });
    expect((await db.select().from(runs).where(eq(runs.id, run.id)).limit(1))[0]?.partialAnswer).toBeNull();
    expect(await listRunEvents(db, { runId: run.id, after: 1 })).toEqual([
      { event: "answer", data: { status: "done" }, id: "2" },
    ]);
  });
  it("a run already stored interrupted by a recovery keeps that end: finishing it later stores no second answer", async () => {
    const conversation = await createConversation(db, { ownerId: null });
    await insertMessage(db, { conversationId: conversation.id, role: "user", content: "q" });
    const run = await createRun(db, { conversationId: conversation.id, mode: "plain", model: "m" });
    await savePartialAnswer(db, { runId: run.id, text: "half" });
    expect(await recoverInterruptedRuns(db, { runIds: [run.id] })).toBe(1);
    const late = await finishRun(db, {
      runId: run.id,
      status: "complete",
      iterations: 1,
      inputTokens: 1,
      outputTokens: 1,
      answer: "the whole answer",
    });
    expect(late).toBeUndefined();
    expect((await db.select().from(runs).where(eq(runs.id, run.id)))[0]?.status).toBe("interrupted");
    const answers = await db.select().from(messages).where(eq(messages.runId, run.id));
    expect(answers).toEqual([expect.objectContaining({ content: "half", status: "interrupted" })]);
  });
});

describe("the branch shown", () => {
  const finish = async (runId: string) =>
    (await finishRun(db, { runId, status: "complete", iterations: 1, inputTokens: 1, outputTokens: 1, answer: "a" }))!;

  it("a question and an answer each become the end of the branch shown; an interrupt does not", async () => {
    const conversation = await createConversation(db, { ownerId: null });
    const question = await insertMessage(db, { conversationId: conversation.id, role: "user", content: "q" });
    const run = await createRun(db, { conversationId: conversation.id, mode: "plain", model: "m" });
    expect(run.questionId).toBe(question.id);
    const interrupt = await insertMessage(db, {
      conversationId: conversation.id,
      parentId: question.id,
      role: "user",
      content: "also",
      runId: run.id,
    });
    expect((await getConversation(db, { id: conversation.id, ownerId: null })).activeLeafId).toBe(question.id);
    const answer = await finish(run.id);
    expect(answer.parentId).toBe(question.id);
    const detail = await getConversationDetail(db, { id: conversation.id, ownerId: null });
    expect(detail.messages.map((m) => m.id)).toEqual([question.id, interrupt.id, answer.id]);
  });

  it("a run's answer ends the branch shown only when its question still does", async () => {
    const conversation = await createConversation(db, { ownerId: null });
    await insertMessage(db, { conversationId: conversation.id, role: "user", content: "q1" });
    const first = await finish(
      (await createRun(db, { conversationId: conversation.id, mode: "plain", model: "m" })).id,
    );
    await insertMessage(db, { conversationId: conversation.id, role: "user", content: "q2" });
    const run = await createRun(db, { conversationId: conversation.id, mode: "plain", model: "m" });
    // Another branch is shown by the time the answer is stored (e.g. stored late, the database busy).
    await setActiveLeaf(db, { id: conversation.id, messageId: first.id });
    const late = await finish(run.id);
    expect((await getConversation(db, { id: conversation.id, ownerId: null })).activeLeafId).toBe(first.id);
    await selectBranch(db, { id: conversation.id, ownerId: null, messageId: late.id });
    expect(
      (await getConversationDetail(db, { id: conversation.id, ownerId: null })).messages.map((m) => m.content),
    ).toEqual(["q1", "a", "q2", "a"]);
  });

  it("selecting a message of another conversation is not_found and changes nothing", async () => {
    const mine = await createConversation(db, { ownerId: null });
    const other = await createConversation(db, { ownerId: null });
    const kept = await insertMessage(db, { conversationId: mine.id, role: "user", content: "mine" });
    const foreign = await insertMessage(db, { conversationId: other.id, role: "user", content: "theirs" });
    await expect(selectBranch(db, { id: mine.id, ownerId: null, messageId: foreign.id })).rejects.toThrowError(
      expect.objectContaining({ code: "not_found:message" }),
    );
    expect((await getConversation(db, { id: mine.id, ownerId: null })).activeLeafId).toBe(kept.id);
  });
});
