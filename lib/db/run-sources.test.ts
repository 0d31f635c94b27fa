import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { AppError } from "@/lib/errors";
import type { RunEvent } from "@/lib/protocol/run-events";
import { storedSourceSchema } from "@/lib/protocol/sources";
import { tempDbForEachTest } from "@/tests/support/temp-db";
import type { Db } from "./client";
import { createConversation, deleteConversation } from "./conversations";
import { insertMessage } from "./messages";
import {
  appendSourcePart,
  getRunSource,
  listRunSources,
  messageSources,
  runSourcesWhole,
  sourceRead,
  storeRunEvent,
} from "./run-sources";
import { createRun, listRunEvents } from "./runs";
import { runSourceParts, runSources } from "./schema";

let db: Db;
tempDbForEachTest((temp) => {
  db = temp.db;
});

const hex = (text: string) => createHash("sha256").update(text).digest("hex");
const page = { n: 1, url: "https://example.org/a", title: "A" };
const pdf = { n: 2, url: "attachment:f1", title: "report.pdf" };

async function newRun() {
  const conversation = await createConversation(db, { title: "t", model: "m", ownerId: null });
  const question = await insertMessage(db, { conversationId: conversation.id, role: "user", content: "q" });
  const run = await createRun(db, {
    conversationId: conversation.id,
    questionId: question.id,
    mode: "native",
    model: "m",
  });
  return { conversationId: conversation.id, runId: run.id };
}

function toolResult(seq: number, fields: Record<string, unknown>): RunEvent {
  return {
    event: "step",
    data: {
      type: "tool_result",
      iteration: 1,
      callId: `c${seq}`,
      tool: "scrape_url",
      ok: true,
      durationMs: 1,
      seq,
      at: 5000 + seq,
      ...fields,
    },
  } as RunEvent;
}

describe("the source store (docs/research.md, The source store)", () => {
  it("stores a new source with its first part: text, SHA-256 of the text, its length, when it was read", async () => {
    const { runId } = await newRun();
    expect(await appendSourcePart(db, { runId, source: page, text: "Alpha text.", at: 1000 })).toBe(true);
    expect(await listRunSources(db, { runId })).toEqual([
      { ...page, retrievedAt: 1000, contentHash: hex("Alpha text."), chars: 11 },
    ]);
    expect(await getRunSource(db, { runId, n: 1 })).toEqual({
      ...page,
      retrievedAt: 1000,
      contentHash: hex("Alpha text."),
      chars: 11,
      text: "Alpha text.",
      parts: [{ start: 0, end: 11 }],
    });
  });

  it("adds a further part of a known source: the parts joined by a blank line, hash and chars of the whole, pages per part, first read's URL, title and time kept", async () => {
    const { runId } = await newRun();
    await appendSourcePart(db, {
      runId,
      source: pdf,
      text: "Page one.",
      pages: { first: 1, last: 1, total: 3 },
      at: 1000,
    });
    await appendSourcePart(db, {
      runId,
      source: { ...pdf, title: "renamed" },
      text: "Pages two and three.",
      pages: { first: 2, last: 3, total: 3 },
      at: 2000,
    });
    const whole = await getRunSource(db, { runId, n: 2 });
    const text = "Page one.\n\nPages two and three.";
    expect(whole).toEqual({
      ...pdf,
      retrievedAt: 1000,
      contentHash: hex(text),
      chars: text.length,
      text,
      parts: [
        { start: 0, end: 9, pages: { first: 1, last: 1, total: 3 } },
        { start: 11, end: 31, pages: { first: 2, last: 3, total: 3 } },
      ],
    });
    expect(storedSourceSchema.parse(whole)).toEqual(whole);
    for (const part of whole.parts) expect(whole.text.slice(part.start, part.end)).not.toContain("\n\n");
  });

  it("does not store a part whose text is already stored for that source (the same page read again)", async () => {
    const { runId } = await newRun();
    await appendSourcePart(db, { runId, source: page, text: "Same.", at: 1000 });
    await appendSourcePart(db, { runId, source: page, text: "Other.", at: 1100 });
    expect(await appendSourcePart(db, { runId, source: page, text: "Same.", at: 1200 })).toBe(false);
    const whole = await getRunSource(db, { runId, n: 1 });
    expect(whole.text).toBe("Same.\n\nOther.");
    expect(whole.contentHash).toBe(hex("Same.\n\nOther."));
    expect(await db.select().from(runSourceParts)).toHaveLength(2);
  });

  it("stores a source read as nothing, without an empty part, so the number the answer may cite exists", async () => {
    const { runId } = await newRun();
    expect(await appendSourcePart(db, { runId, source: page, text: "", at: 1000 })).toBe(false);
    expect(await getRunSource(db, { runId, n: 1 })).toMatchObject({
      text: "",
      chars: 0,
      parts: [],
      contentHash: hex(""),
    });
  });

  it("lists a run's sources by number, only its own, and reads them whole", async () => {
    const { runId } = await newRun();
    const other = await newRun();
    await appendSourcePart(db, { runId, source: pdf, text: "Two.", at: 2 });
    await appendSourcePart(db, { runId, source: page, text: "One.", at: 1 });
    await appendSourcePart(db, { runId: other.runId, source: page, text: "Elsewhere.", at: 3 });
    expect((await listRunSources(db, { runId })).map((source) => source.n)).toEqual([1, 2]);
    expect((await runSourcesWhole(db, { runId })).map((source) => source.text)).toEqual(["One.", "Two."]);
  });

  it("an unknown source number of a run is not_found:source", async () => {
    const { runId } = await newRun();
    await appendSourcePart(db, { runId, source: page, text: "One.", at: 1 });
    const missing = await getRunSource(db, { runId, n: 3 }).catch((error: unknown) => error);
    expect(missing).toBeInstanceOf(AppError);
    expect((missing as AppError).code).toBe("not_found:source");
  });

  it("reads the sources of a message's run; a message without a run has none", async () => {
    const { conversationId, runId } = await newRun();
    await appendSourcePart(db, { runId, source: page, text: "One.", at: 1 });
    const answer = await insertMessage(db, { conversationId, role: "assistant", content: "a [1]", runId });
    const plain = await insertMessage(db, { conversationId, role: "assistant", content: "b" });
    expect((await messageSources(db, { messageId: answer.id })).map((source) => source.text)).toEqual(["One."]);
    expect(await messageSources(db, { messageId: plain.id })).toEqual([]);
  });

  it("removes a run's sources and their parts with its conversation", async () => {
    const { conversationId, runId } = await newRun();
    await appendSourcePart(db, { runId, source: page, text: "One.", at: 1 });
    await deleteConversation(db, {
      id: conversationId,
      ownerId: null,
      runsHere: { instanceId: null, get: () => undefined },
    });
    expect(await db.select().from(runSources)).toEqual([]);
    expect(await db.select().from(runSourceParts)).toEqual([]);
  });
});

describe("storing a run's events with the sources they read", () => {
  it("a tool_result step with a source stores the observation's text without its paging footer, with the PDF pages", async () => {
    const { runId } = await newRun();
    const body = "Body of the window.";
    const event = toolResult(1, {
      observation: `${body}\n[more: token abc]`,
      paging: { nextToken: "abc", bodyChars: body.length, sourcePages: { first: 1, last: 2, total: 9 } },
      source: pdf,
    });
    await storeRunEvent(db, { runId, seq: 1, event });
    expect(await listRunEvents(db, { runId })).toHaveLength(1);
    expect(await getRunSource(db, { runId, n: 2 })).toMatchObject({
      retrievedAt: 5001,
      text: body,
      parts: [{ start: 0, end: body.length, pages: { first: 1, last: 2, total: 9 } }],
    });
  });

  it("a PDF's last window, which has no paging footer, stores the pages it came from", async () => {
    const { runId } = await newRun();
    const event = toolResult(1, { observation: "Last pages.", source: pdf, pages: { first: 8, last: 9, total: 9 } });
    await storeRunEvent(db, { runId, seq: 1, event });
    expect(await getRunSource(db, { runId, n: 2 })).toMatchObject({
      text: "Last pages.",
      parts: [{ start: 0, end: 11, pages: { first: 8, last: 9, total: 9 } }],
    });
  });

  it("a tool_result without paging stores its whole observation; steps that read no source store none", async () => {
    const { runId } = await newRun();
    await storeRunEvent(db, { runId, seq: 1, event: toolResult(1, { observation: "Whole page.", source: page }) });
    await storeRunEvent(db, { runId, seq: 2, event: toolResult(2, { observation: "[]", tool: "web_search" }) });
    await storeRunEvent(db, { runId, seq: 3, event: toolResult(3, { observation: "failed", ok: false }) });
    expect((await runSourcesWhole(db, { runId })).map((source) => source.text)).toEqual(["Whole page."]);
    expect(await listRunEvents(db, { runId })).toHaveLength(3);
    expect(sourceRead(runId, { event: "done", data: {} } as unknown as RunEvent)).toBeNull();
  });

  it("stores the event and its part together or neither: an event that cannot be stored leaves no part", async () => {
    const { runId } = await newRun();
    await storeRunEvent(db, { runId, seq: 1, event: toolResult(1, { observation: "First.", source: page }) });
    // The same seq again: the event's insert fails, and the part read with it goes too.
    const again = toolResult(1, { observation: "Second.", source: page });
    await expect(storeRunEvent(db, { runId, seq: 1, event: again })).rejects.toThrow();
    expect((await getRunSource(db, { runId, n: 1 })).text).toBe("First.");
  });
});
