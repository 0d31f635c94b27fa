import { describe, expect, it } from "vitest";
import type { CitationReport } from "@/lib/protocol/citations";
import { tempDbForEachTest } from "@/tests/support/temp-db";
import { saveCitationReport } from "./citation-reports";
import type { Db } from "./client";
import { getConversationDetail } from "./conversation-detail";
import { createConversation } from "./conversations";
import { insertMessage } from "./messages";

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
});
