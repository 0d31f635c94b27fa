import { describe, expect, it } from "vitest";
import type { Message } from "@/lib/db/schema";
import { previousTurns, systemPrompt } from "./history";

const message = (
  id: string,
  role: Message["role"],
  content: string,
  status: Message["status"] = "complete",
): Message => ({
  id,
  conversationId: "c",
  parentId: null,
  role,
  content,
  status,
  runId: null,
  attachmentIds: null,
  createdAt: 0,
});

describe("what the model is given", () => {
  it("the system prompt has today's date and lists the conversation's files as attachment references", () => {
    const text = systemPrompt(
      "en",
      [
        {
          id: "f1",
          origin: "upload",
          filename: "report.pdf",
          mime: "application/pdf",
          size: 2_500_000,
          pageCount: 12,
          sourceUrl: null,
          createdAt: 0,
        },
        {
          id: "f2",
          origin: "fetch",
          filename: "data.csv",
          mime: "text/csv",
          size: 900,
          pageCount: null,
          sourceUrl: "https://x",
          createdAt: 0,
        },
      ],
      new Date("2026-11-30T12:00:00Z"),
    );
    expect(text).toContain("Today is 2026-11-30");
    expect(text).toContain("- attachment:f1 — report.pdf, 12 pages, 2.4 MB");
    expect(text).toContain("- attachment:f2 — data.csv, 1 KB");
  });

  it("earlier turns are final answers only, never a failed run's partial answer, after the stored summary", () => {
    const previous = [
      message("m1", "user", "old question"),
      message("m2", "assistant", "old answer"),
      message("m3", "user", "failed question"),
      message("m4", "assistant", "half an answer", "error"),
      message("m5", "user", "recent question"),
      message("m6", "assistant", "recent answer"),
    ];
    const plain = previousTurns(previous, { summary: null, summaryThrough: null }, "en").history;
    expect(plain.map((m) => m.content)).toEqual([
      "old question",
      "old answer",
      "failed question",
      "recent question",
      "recent answer",
    ]);
    const summarised = previousTurns(previous, { summary: "they talked", summaryThrough: "m4" }, "en").history;
    expect(summarised.map((m) => m.content)).toEqual([
      "[Conversation summary]\nthey talked",
      "recent question",
      "recent answer",
    ]);
  });
});
