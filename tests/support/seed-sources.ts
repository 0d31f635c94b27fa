import { and, eq, like } from "drizzle-orm";
import { saveCitationReport } from "@/lib/db/citation-reports";
import type { Db } from "@/lib/db/client";
import { appendSourcePart } from "@/lib/db/run-sources";
import { messages } from "@/lib/db/schema";
import type { CitationReport } from "@/lib/protocol/citations";
import { seedConversation } from "./seed-conversation";

/** When the seeded sources were read: 2026-03-04 and 2026-03-05 (UTC). */
export const READ_AT = [Date.UTC(2026, 2, 4, 10), Date.UTC(2026, 2, 5, 10)] as const;

/**
 * `seedConversation`'s conversation with its first answer's sources stored and its citations
 * checked: source 1 the attached PDF read in two parts (pages 1 and 2), source 2 a web page in
 * Japanese; the answer "The report says two things [1][2]." checked as supported by 1, not found in 2.
 */
export async function seedConversationWithSources(db: Db, options: { title?: string } = {}) {
  const seeded = await seedConversation(db, options);
  const [answer] = await db
    .select()
    .from(messages)
    .where(and(eq(messages.conversationId, seeded.conversationId), like(messages.content, "The report says%")));
  if (!answer?.runId) throw new Error("the seeded answer has no run");
  const runId = answer.runId;
  const pdf = { n: 1, url: `attachment:${seeded.pdfId}`, title: "report.pdf" };
  await appendSourcePart(db, {
    runId,
    source: pdf,
    text: "The report names two findings.",
    pages: { first: 1, last: 1, total: 2 },
    at: READ_AT[0],
  });
  await appendSourcePart(db, {
    runId,
    source: pdf,
    text: "Second, costs fell by 12%.",
    pages: { first: 2, last: 2, total: 2 },
    at: READ_AT[0] + 1000,
  });
  await appendSourcePart(db, {
    runId,
    source: { n: 2, url: "https://example.org/a_(b)", title: "Example [x]" },
    text: "東京は日本の首都です。報告書は二つの点を述べている。",
    at: READ_AT[1],
  });
  const report: CitationReport = {
    checkedAt: READ_AT[1] + 60_000,
    verifierModel: "qwen3:8b",
    checks: [
      {
        sentence: "The report says two things.",
        start: 0,
        end: 35,
        n: 1,
        verdict: "supported",
        passage: {
          text: "The report names two findings.",
          start: 0,
          end: 30,
          pages: { first: 1, last: 1 },
          matched: ["report", "two"],
        },
        missing: [],
        reason: "The passage names two findings.",
      },
      {
        sentence: "The report says two things.",
        start: 0,
        end: 35,
        n: 2,
        verdict: "not_found",
        passage: null,
        missing: ["two"],
      },
    ],
  };
  await saveCitationReport(db, { messageId: answer.id, report });
  return { ...seeded, runId, answerId: answer.id, report };
}
