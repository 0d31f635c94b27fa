import { eq } from "drizzle-orm";
import type { Db } from "@/lib/db/client";
import { createConversation, saveConversationSummary, selectBranch } from "@/lib/db/conversations";
import { storeInterrupt } from "@/lib/db/interrupts";
import { insertMessage } from "@/lib/db/messages";
import { appendRunEvent, createRun, finishRun } from "@/lib/db/runs";
import { conversations } from "@/lib/db/schema";
import { storeUpload } from "@/lib/files/uploads";
import type { RunEvent } from "@/lib/protocol/run-events";
import { makePng } from "@/tests/support/image-fixtures";
import { makeTextPdf } from "@/tests/support/pdf-fixtures";

const IMAGE_LIMITS = { maxPixels: 16_000_000, maxFrames: 1000 };

/**
 * A conversation with everything a conversation stores: a PDF and an image attached, tool steps
 * with sources (the PDF and a web page), a compaction, a DAG plan, an answer regenerated (two
 * versions), an edited question whose run failed, an interrupt the run took, a follow-up held
 * unsent, a summary, its own settings and tool groups, pinned.
 */
export async function seedConversation(db: Db, { title = "Research 調査" }: { title?: string } = {}) {
  const conversation = await createConversation(db, {
    title,
    model: "qwen3:8b",
    settings: { instructions: "Be brief.", temperature: 0.3, seed: 7 },
    disabledToolGroups: ["mcp:notes"],
    ownerId: null,
  });
  const conversationId = conversation.id;
  const upload = (filename: string, bytes: Uint8Array) =>
    storeUpload(db, {
      holder: { conversationId },
      ownerId: null,
      filename,
      bytes: Buffer.from(bytes),
      maxBytes: 10 * 1024 * 1024,
      imageLimits: IMAGE_LIMITS,
    });
  const pdf = await upload("report.pdf", makeTextPdf([["one"], ["two"]]));
  const png = await upload("chart.png", makePng({ width: 2, height: 2 }));
  const question = await insertMessage(db, {
    conversationId,
    role: "user",
    content: "Summarise the report",
    attachmentIds: [pdf.id, png.id],
  });

  const answered = (runId: string, seq: number, events: RunEvent[]) => {
    events.forEach(async (event, index) => {
      await appendRunEvent(db, { runId, seq: seq + index, event });
    });
  };
  const first = await createRun(db, { conversationId, questionId: question.id, mode: "native", model: "qwen3:8b" });
  const taken = await insertMessage(db, {
    conversationId,
    parentId: question.id,
    role: "user",
    content: "Also the chart, please",
    runId: first.id,
  });
  const firstAnswerId = crypto.randomUUID();
  answered(first.id, 1, [
    {
      event: "run",
      data: { runId: first.id, conversationId, userMessageId: question.id, model: "qwen3:8b", mode: "native" },
    },
    {
      event: "step",
      data: {
        type: "tool_call",
        seq: 2,
        at: 1,
        iteration: 1,
        callId: "c1",
        tool: "pdf_to_text",
        args: { ref: `attachment:${pdf.id}` },
      },
    },
    {
      event: "step",
      data: {
        type: "tool_result",
        seq: 3,
        at: 2,
        iteration: 1,
        callId: "c1",
        tool: "pdf_to_text",
        ok: true,
        observation: `Text of attachment:${pdf.id}`,
        durationMs: 5,
        source: { n: 1, url: `attachment:${pdf.id}`, title: "report.pdf" },
      },
    },
    {
      event: "step",
      data: {
        type: "tool_result",
        seq: 4,
        at: 3,
        iteration: 1,
        callId: "c2",
        tool: "scrape_url",
        ok: true,
        observation: "A page",
        durationMs: 7,
        source: { n: 2, url: "https://example.org/a_(b)", title: "Example [x]" },
      },
    },
    {
      event: "step",
      data: {
        type: "interrupt",
        seq: 5,
        at: 4,
        iteration: 1,
        interrupts: [{ id: taken.id, text: taken.content }],
      },
    },
    { event: "compact", data: { originalMessages: 9, keptMessages: 4, tokensBefore: 900, tokensAfter: 300 } },
    {
      event: "plan",
      data: {
        round: 1,
        steps: [{ id: "s1", task: "Read", dependencies: [], tool_hint: "pdf_to_text", model_hint: null }],
      },
    },
    { event: "step_progress", data: { stepId: "s1", status: "done", model: "qwen3:8b", result: "read", at: 5 } },
    { event: "answer", data: { status: "start" } },
    { event: "answer", data: { status: "done" } },
    {
      event: "done",
      data: {
        messageId: firstAnswerId,
        iterations: 2,
        usage: { inputTokens: 10, outputTokens: 20, totalTokens: 30, generationMs: 40 },
        elapsedMs: 50,
      },
    },
  ]);
  await finishRun(db, {
    runId: first.id,
    status: "complete",
    iterations: 2,
    inputTokens: 10,
    outputTokens: 20,
    generationMs: 40,
    answer: `The report says two things [1][2]. See attachment:${pdf.id}.`,
    messageId: firstAnswerId,
  });

  const regenerated = await createRun(db, { conversationId, questionId: question.id, mode: "dag", model: "qwen3:8b" });
  await finishRun(db, {
    runId: regenerated.id,
    status: "complete",
    iterations: 1,
    inputTokens: 1,
    outputTokens: 2,
    fallback: true,
    error: "synthesis failed",
    answer: "A second version.",
  });
  await saveConversationSummary(db, {
    id: conversationId,
    summary: "Earlier: a report.",
    throughMessageId: question.id,
  });

  const edited = await insertMessage(db, {
    conversationId,
    parentId: null,
    role: "user",
    content: "Summarise it in Japanese",
  });
  const failed = await createRun(db, { conversationId, questionId: edited.id, mode: "json", model: "qwen3:8b" });
  await storeInterrupt(db, {
    interrupt: { id: crypto.randomUUID(), text: "unsent follow-up" },
    conversationId,
    runId: failed.id,
  });
  await finishRun(db, {
    runId: failed.id,
    status: "error",
    iterations: 0,
    inputTokens: 0,
    outputTokens: 0,
    error: "Ollama went away",
    answer: "",
  });
  await db.update(conversations).set({ pinned: true }).where(eq(conversations.id, conversationId));
  // Shows the first branch again: the choice of branch is part of what is exported.
  await selectBranch(db, { id: conversationId, ownerId: null, messageId: firstAnswerId });
  return { conversationId, pdfId: pdf.id, pngId: png.id };
}

/** A new conversation with one question and its run, still running (of `instanceId` when given). */
export async function storedRunningRun(
  db: Db,
  { model = "m", instanceId }: { model?: string; instanceId?: string | null } = {},
) {
  const conversation = await createConversation(db, { ownerId: null });
  const question = await insertMessage(db, { conversationId: conversation.id, role: "user", content: "q" });
  const run = await createRun(db, {
    conversationId: conversation.id,
    questionId: question.id,
    mode: "native",
    model,
    instanceId,
  });
  return { conversation, question, run };
}
