import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import type { CitationReport } from "@/lib/protocol/citations";
import { tempDbForEachTest } from "@/tests/support/temp-db";
import { citationReportsOf, saveCitationReport } from "./citation-reports";
import type { Db } from "./client";
import { createConversation } from "./conversations";
import { insertMessage } from "./messages";
import { citationReports, messages } from "./schema";

let db: Db;
tempDbForEachTest((temp) => {
  db = temp.db;
});

function report(verdict: "found" | "supported", checkedAt: number): CitationReport {
  return {
    checks: [
      {
        sentence: "The bridge opened in 1932.",
        start: 0,
        end: 30,
        n: 1,
        verdict,
        passage: { text: "opened in 1932", start: 10, end: 24, matched: ["opened", "1932"] },
        missing: [],
      },
    ],
    checkedAt,
  };
}

async function answer() {
  const conversation = await createConversation(db, { title: "t", model: "m", ownerId: null });
  const question = await insertMessage(db, { conversationId: conversation.id, role: "user", content: "q" });
  return insertMessage(db, {
    conversationId: conversation.id,
    parentId: question.id,
    role: "assistant",
    content: "a [1]",
  });
}

describe("citation reports (docs/research.md, Checking citations)", () => {
  it("reads back the report stored with a message, and none for a message without one", async () => {
    const [cited, uncited] = [await answer(), await answer()];
    await saveCitationReport(db, { messageId: cited.id, report: report("found", 1000) });
    const reports = await citationReportsOf(db, [cited.id, uncited.id]);
    expect(reports.get(cited.id)).toEqual(report("found", 1000));
    expect(reports.has(uncited.id)).toBe(false);
    expect(await citationReportsOf(db, [])).toEqual(new Map());
  });

  it("keeps one report per message: a later check replaces the earlier", async () => {
    const message = await answer();
    await saveCitationReport(db, { messageId: message.id, report: report("found", 1000) });
    await saveCitationReport(db, { messageId: message.id, report: report("supported", 2000) });
    expect((await citationReportsOf(db, [message.id])).get(message.id)).toEqual(report("supported", 2000));
    const rows = await db.select().from(citationReports).where(eq(citationReports.messageId, message.id));
    expect(rows.map((row) => row.checkedAt)).toEqual([2000]);
  });

  it("refuses to store a report that does not fit the schema", async () => {
    const message = await answer();
    const bad = report("found", 1);
    bad.checks = bad.checks.map((check) => ({ ...check, n: 0 }));
    await expect(saveCitationReport(db, { messageId: message.id, report: bad })).rejects.toThrow();
    expect(await citationReportsOf(db, [message.id])).toEqual(new Map());
  });

  it("leaves out a stored report that no longer fits the schema", async () => {
    const message = await answer();
    await db
      .insert(citationReports)
      .values({ messageId: message.id, report: { checks: "no" } as unknown as CitationReport, checkedAt: 1 });
    expect(await citationReportsOf(db, [message.id])).toEqual(new Map());
  });

  it("removes a message's report with the message", async () => {
    const message = await answer();
    await saveCitationReport(db, { messageId: message.id, report: report("found", 1000) });
    await db.delete(messages).where(eq(messages.id, message.id));
    expect(await db.select().from(citationReports)).toEqual([]);
  });
});
