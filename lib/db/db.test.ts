import { eq } from "drizzle-orm";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { resetConfigForTests } from "@/lib/config";
import { AppError } from "@/lib/errors";
import { tempDb } from "@/tests/support/temp-db";
import { type Db, openDb } from "./client";
import { listHeldInterrupts, storeInterrupt } from "./interrupts";
import {
  createConversation,
  DEFAULT_TITLE,
  deleteConversation,
  getConversation,
  getConversationDetail,
  insertMessage,
  listConversations,
  selectBranch,
  setActiveLeaf,
  titleFromMessage,
  updateConversation,
} from "./queries";
import { appendRunEvent, createRun, finishRun, listRunEvents, savePartialAnswer } from "./runs";
import { files, messages, runEvents, runs } from "./schema";

let ctx: ReturnType<typeof tempDb>;
let db: Db;

beforeEach(() => {
  ctx = tempDb();
  db = ctx.db;
});
afterEach(() => ctx.cleanup());

function addFile(conversationId: string) {
  db.insert(files)
    .values({
      id: crypto.randomUUID(),
      conversationId,
      origin: "upload",
      filename: "a.pdf",
      mime: "application/pdf",
      size: 3,
      sha256: "x",
      bytes: Buffer.from("pdf"),
      createdAt: Date.now(),
    })
    .run();
}

describe("database setup", () => {
  it("opens in WAL mode with foreign keys on and a busy timeout", () => {
    expect(db.$client.pragma("journal_mode", { simple: true })).toBe("wal");
    expect(db.$client.pragma("foreign_keys", { simple: true })).toBe(1);
    expect(Number(db.$client.pragma("busy_timeout", { simple: true }))).toBeGreaterThan(0);
  });

  it("waits for another connection's lock only DB_BUSY_TIMEOUT_MS, short by default (a waiting write blocks the server)", () => {
    expect(Number(db.$client.pragma("busy_timeout", { simple: true }))).toBe(300);
    vi.stubEnv("DB_BUSY_TIMEOUT_MS", "120");
    resetConfigForTests();
    try {
      const other = openDb(ctx.file);
      expect(Number(other.$client.pragma("busy_timeout", { simple: true }))).toBe(120);
      other.$client.close();
    } finally {
      vi.unstubAllEnvs();
      resetConfigForTests();
    }
  });

  it("applies the drizzle migrations, creating every table", () => {
    const tables = db.$client
      .prepare("select name from sqlite_master where type = 'table' order by name")
      .all()
      .map((row) => (row as { name: string }).name);
    expect(tables).toEqual(
      expect.arrayContaining(["conversations", "messages", "runs", "run_events", "files", "__drizzle_migrations"]),
    );
  });

  it("reopening an existing database applies nothing twice", () => {
    createConversation(db, { ownerId: null, title: "kept" });
    db.$client.close();
    const again = openDb(ctx.file);
    expect(listConversations(again, { ownerId: null }).conversations.map((c) => c.title)).toEqual(["kept"]);
    ctx.db = again;
  });
});

describe("crash recovery", () => {
  it("marks a run left running as interrupted at the next start, keeping its partial answer", () => {
    const conversation = createConversation(db, { ownerId: null });
    const run = createRun(db, { conversationId: conversation.id, mode: "plain", model: "m" });
    savePartialAnswer(db, { runId: run.id, text: "half an answ" });
    db.$client.close();

    const reopened = openDb(ctx.file);
    ctx.db = reopened;
    const stored = reopened.select().from(runs).where(eq(runs.id, run.id)).get();
    expect(stored?.status).toBe("interrupted");
    expect(stored?.finishedAt).not.toBeNull();
    const detail = getConversationDetail(reopened, { ownerId: null, id: conversation.id });
    expect(detail.activeRunId).toBeNull();
    expect(detail.messages).toHaveLength(1);
    expect(detail.messages[0]).toMatchObject({ role: "assistant", status: "interrupted", content: "half an answ" });
    expect(detail.messages[0]?.run?.status).toBe("interrupted");
  });
});

describe("held interrupts at a restart", () => {
  it("pending follow-ups of a run recovered at startup are kept as unsent", () => {
    const conversation = createConversation(db, { ownerId: null });
    const run = createRun(db, { conversationId: conversation.id, mode: "native", model: "m" });
    const interrupt = { id: "i1", text: "and the prices too" };
    storeInterrupt(db, { interrupt, conversationId: conversation.id, runId: run.id });
    expect(listHeldInterrupts(db, { conversationId: conversation.id })).toMatchObject([{ id: "i1", unsent: false }]);
    db.$client.close();

    const reopened = openDb(ctx.file);
    ctx.db = reopened;
    expect(listHeldInterrupts(reopened, { conversationId: conversation.id })).toEqual([
      { id: "i1", runId: run.id, text: "and the prices too", createdAt: expect.any(Number), unsent: true },
    ]);
  });
});

describe("deleting a conversation", () => {
  it("cascades to its messages, runs, run events and files", () => {
    const conversation = createConversation(db, { ownerId: null });
    const other = createConversation(db, { ownerId: null });
    for (const id of [conversation.id, other.id]) {
      insertMessage(db, { conversationId: id, role: "user", content: "hi" });
      const run = createRun(db, { conversationId: id, mode: "plain", model: "m" });
      appendRunEvent(db, { runId: run.id, seq: 1, event: { event: "answer", data: { status: "start" } } });
      finishRun(db, { runId: run.id, status: "complete", iterations: 1, inputTokens: 1, outputTokens: 1, answer: "a" });
      addFile(id);
    }
    deleteConversation(db, { ownerId: null, id: conversation.id });
    for (const table of [messages, runs, files] as const) {
      const rows = db.select().from(table).all() as { conversationId: string }[];
      expect(rows.every((row) => row.conversationId === other.id)).toBe(true);
      expect(rows.length).toBeGreaterThan(0);
    }
    expect(db.select().from(runEvents).all()).toHaveLength(1);
  });

  it("an unknown id is a not_found error", () => {
    expect(() => deleteConversation(db, { ownerId: null, id: "nope" })).toThrowError(
      expect.objectContaining({ code: "not_found:conversation" }),
    );
  });
});

describe("conversations", () => {
  it("lists newest first and pages with a cursor without gaps or repeats", () => {
    const created = Array.from({ length: 7 }, (_, i) => createConversation(db, { ownerId: null, title: `c${i}` }));
    // Same timestamp for several rows: the cursor must still order them totally.
    db.$client.prepare("update conversations set updated_at = 1000").run();
    const seen: string[] = [];
    let cursor: string | undefined;
    do {
      const page = listConversations(db, { ownerId: null, cursor, limit: 3 });
      seen.push(...page.conversations.map((c) => c.id));
      cursor = page.nextCursor ?? undefined;
    } while (cursor);
    expect(new Set(seen).size).toBe(created.length);
    expect(seen).toHaveLength(created.length);
  });

  it("orders by last activity: a new message moves a conversation to the top", () => {
    const older = createConversation(db, { ownerId: null, title: "older" });
    const newer = createConversation(db, { ownerId: null, title: "newer" });
    db.$client.prepare("update conversations set updated_at = updated_at - 10000 where id = ?").run(older.id);
    db.$client.prepare("update conversations set updated_at = updated_at - 5000 where id = ?").run(newer.id);
    expect(listConversations(db, { ownerId: null }).conversations[0]?.id).toBe(newer.id);
    insertMessage(db, { conversationId: older.id, role: "user", content: "bump" });
    expect(listConversations(db, { ownerId: null }).conversations[0]?.id).toBe(older.id);
  });

  it("searches titles and message contents, treating % and _ literally", () => {
    const byTitle = createConversation(db, { ownerId: null, title: "Tokyo trip" });
    const byContent = createConversation(db, { ownerId: null, title: "misc" });
    insertMessage(db, { conversationId: byContent.id, role: "assistant", content: "The tokyo tower is 333 m" });
    const percent = createConversation(db, { ownerId: null, title: "100% done" });
    createConversation(db, { ownerId: null, title: "100 done" });
    expect(
      listConversations(db, { ownerId: null, q: "tokyo" })
        .conversations.map((c) => c.id)
        .sort(),
    ).toEqual([byTitle.id, byContent.id].sort());
    expect(listConversations(db, { ownerId: null, q: "100%" }).conversations.map((c) => c.id)).toEqual([percent.id]);
    expect(listConversations(db, { ownerId: null, q: "_" }).conversations).toEqual([]);
  });

  it("rejects a malformed cursor as a bad request", () => {
    expect(() => listConversations(db, { ownerId: null, cursor: "garbage" })).toThrow(AppError);
  });

  it("renames, changes the model, and falls back to the default title for a blank one", () => {
    const conversation = createConversation(db, { ownerId: null, title: "  " });
    expect(conversation.title).toBe(DEFAULT_TITLE);
    updateConversation(db, { ownerId: null, id: conversation.id, title: "Renamed", model: "qwen3:8b" });
    expect(getConversation(db, { ownerId: null, id: conversation.id })).toMatchObject({
      title: "Renamed",
      model: "qwen3:8b",
    });
  });

  it("titles from the first message: one line, cut at a word", () => {
    expect(titleFromMessage("  What is\nthe   weather? ")).toBe("What is the weather?");
    const long = titleFromMessage("word ".repeat(40));
    expect(long.length).toBeLessThanOrEqual(81);
    expect(long.endsWith("word…")).toBe(true);
  });
});

describe("runs", () => {
  it("finishing a run stores the assistant message and its usage, and clears the partial answer", () => {
    const conversation = createConversation(db, { ownerId: null });
    const run = createRun(db, { conversationId: conversation.id, mode: "plain", model: "m" });
    savePartialAnswer(db, { runId: run.id, text: "part" });
    appendRunEvent(db, { runId: run.id, seq: 1, event: { event: "answer", data: { status: "start" } } });
    appendRunEvent(db, { runId: run.id, seq: 2, event: { event: "answer", data: { status: "done" } } });
    const message = finishRun(db, {
      runId: run.id,
      status: "stopped",
      iterations: 1,
      inputTokens: 10,
      outputTokens: 5,
      answer: "partial",
    });
    expect(message).toMatchObject({ role: "assistant", status: "stopped", content: "partial", runId: run.id });
    const detail = getConversationDetail(db, { ownerId: null, id: conversation.id });
    expect(detail.messages[0]?.run).toMatchObject({
      status: "stopped",
      usage: { inputTokens: 10, outputTokens: 5, totalTokens: 15 },
    });
    expect(db.select().from(runs).where(eq(runs.id, run.id)).get()?.partialAnswer).toBeNull();
    expect(listRunEvents(db, { runId: run.id, after: 1 })).toEqual([
      { event: "answer", data: { status: "done" }, id: "2" },
    ]);
  });
});

describe("the branch shown", () => {
  const finish = (runId: string) =>
    finishRun(db, { runId, status: "complete", iterations: 1, inputTokens: 1, outputTokens: 1, answer: "a" });

  it("a question and an answer each become the end of the branch shown; an interrupt does not", () => {
    const conversation = createConversation(db, { ownerId: null });
    const question = insertMessage(db, { conversationId: conversation.id, role: "user", content: "q" });
    const run = createRun(db, { conversationId: conversation.id, mode: "plain", model: "m" });
    expect(run.questionId).toBe(question.id);
    const interrupt = insertMessage(db, {
      conversationId: conversation.id,
      parentId: question.id,
      role: "user",
      content: "also",
      runId: run.id,
    });
    expect(getConversation(db, { id: conversation.id, ownerId: null }).activeLeafId).toBe(question.id);
    const answer = finish(run.id);
    expect(answer.parentId).toBe(question.id);
    const detail = getConversationDetail(db, { id: conversation.id, ownerId: null });
    expect(detail.messages.map((m) => m.id)).toEqual([question.id, interrupt.id, answer.id]);
  });

  it("a run's answer ends the branch shown only when its question still does", () => {
    const conversation = createConversation(db, { ownerId: null });
    insertMessage(db, { conversationId: conversation.id, role: "user", content: "q1" });
    const first = finish(createRun(db, { conversationId: conversation.id, mode: "plain", model: "m" }).id);
    insertMessage(db, { conversationId: conversation.id, role: "user", content: "q2" });
    const run = createRun(db, { conversationId: conversation.id, mode: "plain", model: "m" });
    // Another branch is shown by the time the answer is stored (e.g. stored late, the database busy).
    setActiveLeaf(db, { id: conversation.id, messageId: first.id });
    const late = finish(run.id);
    expect(getConversation(db, { id: conversation.id, ownerId: null }).activeLeafId).toBe(first.id);
    selectBranch(db, { id: conversation.id, ownerId: null, messageId: late.id });
    expect(getConversationDetail(db, { id: conversation.id, ownerId: null }).messages.map((m) => m.content)).toEqual([
      "q1",
      "a",
      "q2",
      "a",
    ]);
  });

  it("selecting a message of another conversation is not_found and changes nothing", () => {
    const mine = createConversation(db, { ownerId: null });
    const other = createConversation(db, { ownerId: null });
    const kept = insertMessage(db, { conversationId: mine.id, role: "user", content: "mine" });
    const foreign = insertMessage(db, { conversationId: other.id, role: "user", content: "theirs" });
    expect(() => selectBranch(db, { id: mine.id, ownerId: null, messageId: foreign.id })).toThrowError(
      expect.objectContaining({ code: "not_found:message" }),
    );
    expect(getConversation(db, { id: mine.id, ownerId: null }).activeLeafId).toBe(kept.id);
  });
});
