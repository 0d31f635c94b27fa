import { describe, expect, it } from "vitest";
import type { CitationReport } from "@/lib/protocol/citations";
import { sampleEvents } from "@/tests/support/run-event-samples";
import { tempDbForEachTest } from "@/tests/support/temp-db";
import { saveCitationReport } from "./citation-reports";
import type { Db } from "./client";
import { getConversationDetail } from "./conversation-detail";
import { createConversation } from "./conversations";
import { insertMessage } from "./messages";
import { appendRunEvent, createRun, finishRun } from "./runs";

let db: Db;
tempDbForEachTest((temp) => {
  db = temp.db;
});

const report: CitationReport = {
  checks: [
    {
      sentence: "The bridge opened in 1932.",
      start: 0,
      end: 30,
      n: 1,
      verdict: "found",
      passage: { text: "opened in 1932", start: 10, end: 24, matched: ["opened", "1932"] },
      missing: [],
    },
  ],
  checkedAt: 1000,
};

describe("the conversation detail", () => {
  it("carries each checked answer's citation report, and none on answers never checked or on questions", async () => {
    const conversation = await createConversation(db, { title: "t", model: "m", ownerId: null });
    const question = await insertMessage(db, { conversationId: conversation.id, role: "user", content: "q" });
    const cited = await insertMessage(db, { conversationId: conversation.id, role: "assistant", content: "a [1]" });
    await insertMessage(db, { conversationId: conversation.id, role: "user", content: "q2" });
    const unchecked = await insertMessage(db, { conversationId: conversation.id, role: "assistant", content: "b" });
    await saveCitationReport(db, { messageId: cited.id, report });

    const { messages } = await getConversationDetail(db, { id: conversation.id, ownerId: null });
    const byId = new Map(messages.map((message) => [message.id, message]));
    expect(byId.get(cited.id)?.citations).toEqual(report);
    expect(byId.get(unchecked.id)).not.toHaveProperty("citations");
    expect(byId.get(question.id)).not.toHaveProperty("citations");
  });

  it("carries a research run's brief and its last progress, so a reload shows the outline and progress cards again", async () => {
    const conversation = await createConversation(db, { title: "t", model: "m", ownerId: null });
    const question = await insertMessage(db, { conversationId: conversation.id, role: "user", content: "q" });
    const run = await createRun(db, {
      conversationId: conversation.id,
      questionId: question.id,
      mode: "research",
      model: "m",
    });
    const [brief] = sampleEvents.research_brief;
    const [progress] = sampleEvents.research;
    if (!brief || !progress) throw new Error("the samples have a brief and a progress");
    const later = { ...progress, phase: "writing" as const, done: 1 };
    await appendRunEvent(db, { runId: run.id, seq: 1, event: { event: "research_brief", data: brief } });
    await appendRunEvent(db, { runId: run.id, seq: 2, event: { event: "research", data: progress } });
    await appendRunEvent(db, { runId: run.id, seq: 3, event: { event: "research", data: later } });
    await finishRun(db, {
      runId: run.id,
      status: "complete",
      iterations: 1,
      inputTokens: 0,
      outputTokens: 0,
      answer: "r",
    });

    const { messages } = await getConversationDetail(db, { id: conversation.id, ownerId: null });
    const answer = messages.find((message) => message.role === "assistant");
    expect(answer?.run?.researchBrief).toEqual(brief);
    expect(answer?.run?.research).toEqual(later);
    expect(answer?.run?.steps).toEqual([]);
  });
});
