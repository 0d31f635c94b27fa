import { describe, expect, it, vi } from "vitest";
import { POST as chat } from "@/app/api/chat/route";
import { POST as interrupt } from "@/app/api/conversations/[id]/interrupt/route";
import { GET as getOne } from "@/app/api/conversations/[id]/route";
import { POST as stop } from "@/app/api/conversations/[id]/stop/route";
import { GET as replay } from "@/app/api/runs/[runId]/events/route";
import { getLiveRuns } from "@/lib/chat/chat-service";
import { interruptLiveRuns, interruptLiveRunsAtExit } from "@/lib/chat/shutdown";
import { getDb, sqliteConnection } from "@/lib/db/client";
import { getConversation } from "@/lib/db/conversations";
import { listMessages } from "@/lib/db/messages";
import { appendRunEvent, createRun, finishRun, getRun, listRunEvents } from "@/lib/db/runs";
import type { InterruptAccepted, RunEvent } from "@/lib/protocol/run-events";
import { DEFAULT_MODELS } from "@/tests/fake-ollama/server";
import { setupFakeOllama } from "@/tests/fake-ollama/test-helpers";
import {
  expectApiError,
  jsonRequest,
  newConversation,
  type ParsedEvent,
  params,
  readEvents,
  setupAppEnv,
  waitIdle,
} from "@/tests/support/app-env";

const fake = setupFakeOllama();
const app = setupAppEnv(fake);

const start = (body: Record<string, unknown>) => chat(jsonRequest("/api/chat", "POST", body));
const sendInterrupt = (id: string, message: string) => interrupt(jsonRequest("", "POST", { message }), params({ id }));
const idle = (conversationId: string) => waitIdle(fake(), conversationId);
const chatBodies = () =>
  fake()
    .chatRequests()
    .map((r) => r.body);
const answerOf = (events: ParsedEvent[]) =>
  events
    .filter((e) => e.event === "answer" && e.data.status === "delta")
    .map((e) => String(e.data.content))
    .join("");

describe("POST /api/conversations/:id/interrupt", () => {
  it("answers 409 when nothing runs and 400 for an empty message", async () => {
    const id = await newConversation();
    expect((await sendInterrupt(id, "hello")).status).toBe(409);
    await expectApiError(await sendInterrupt(id, "  "), 400, "bad_request:validation");
    expect((await sendInterrupt("missing", "x")).status).toBe(404);
  });

  it("native mode: drains after all tool messages, stored as a user message where it was injected, under the 202's id", async () => {
    app.web().routes.set("/a", { body: "<p>page a</p>" });
    const id = await newConversation();
    fake().script(
      {
        when: { hasTools: true },
        delayMs: 150,
        toolCalls: [{ name: "scrape_url", arguments: { url: `${app.web().url}/a` } }],
      },
      { when: { hasTools: true }, content: "done" },
    );
    const response = await start({ conversationId: id, message: "read a" });
    await fake().waitForRequests(1);
    const accepted = await sendInterrupt(id, "only the first line");
    expect(accepted.status).toBe(202);
    const { interruptId } = (await accepted.json()) as InterruptAccepted;
    const events = await readEvents(response);
    await idle(id);
    const second = chatBodies()[1].messages as { role: string; content: string }[];
    expect(second.slice(-3).map((m) => m.role)).toEqual(["assistant", "tool", "user"]);
    expect(second.at(-1)?.content).toBe("[USER INTERRUPT]: only the first line\nAcknowledge and adjust if needed.");
    expect(events.find((e) => e.event === "step" && e.data.type === "interrupt")?.data).toMatchObject({
      interrupts: [{ id: interruptId, text: "only the first line" }],
    });
    const stored = (await listMessages(await getDb(), { conversationId: id })).map((m) => [m.role, m.content]);
    expect(stored).toEqual([
      ["user", "read a"],
      ["user", "only the first line"],
      ["assistant", expect.any(String)],
    ]);
    expect((await listMessages(await getDb(), { conversationId: id }))[1]?.id).toBe(interruptId);
  });

  it("JSON mode: after a tool, suppresses a pending final answer and merges several interrupts into a numbered list, each with its own id", async () => {
    app.web().routes.set("/a", { body: "<p>page a</p>" });
    const id = await newConversation("gemma:2b");
    const call = {
      type: "tool_call",
      reasoning: "r",
      tool_name: "scrape_url",
      tool_args: { url: `${app.web().url}/a` },
    };
    fake().script(
      { content: JSON.stringify(call) },
      { delayMs: 150, content: '{"type":"final_answer","reasoning":"r","answer":"early"}' },
      { content: '{"type":"final_answer","reasoning":"r","answer":"adjusted"}' },
    );
    const response = await start({ conversationId: id, message: "question" });
    await fake().waitForRequests(2);
    const ids: string[] = [];
    for (const text of ["same", "same"])
      ids.push(((await (await sendInterrupt(id, text)).json()) as InterruptAccepted).interruptId);
    expect(new Set(ids).size).toBe(2);
    const events = await readEvents(response);
    await idle(id);
    expect(events.find((e) => e.event === "step" && e.data.type === "interrupt")?.data).toMatchObject({
      interrupts: ids.map((interruptId) => ({ id: interruptId, text: "same" })),
    });
    const third = chatBodies()[2].messages as { role: string; content: string }[];
    expect(third.slice(-2)).toEqual([
      { role: "assistant", content: '{"type":"final_answer","reasoning":"r","answer":"early"}' },
      { role: "user", content: "[USER INTERRUPT]: 1. same\n2. same\nAcknowledge and adjust if needed." },
    ]);
  });

  it("an interrupt sent while a direct answer streams leaves the answer standing, comes back in done.pendingInterrupts and is the next turn, not part of this one", async () => {
    const id = await newConversation();
    fake().script(
      { when: { hasTools: true }, chunks: ["a ", "b ", "c"], chunkDelayMs: 100 },
      { when: { hasTools: true }, content: "next" },
    );
    const response = await start({ conversationId: id, message: "q" });
    let accepted: Promise<Response> | undefined;
    const events = await readEvents(response, (e) => {
      if (e.event === "answer" && e.data.status === "start") accepted = sendInterrupt(id, "too late");
      return false;
    });
    if (!accepted) throw new Error("the answer never started");
    const { interruptId } = (await (await accepted).json()) as InterruptAccepted;
    expect(events.findLast((e) => e.event === "done")?.data.pendingInterrupts).toEqual([
      { id: interruptId, text: "too late" },
    ]);
    expect(answerOf(events)).toBe("a b c");
    await expect.poll(async () => (await listMessages(await getDb(), { conversationId: id })).length).toBe(4);
    await idle(id);
    const [question, answer, next] = await listMessages(await getDb(), { conversationId: id });
    expect([question?.content, answer?.content, next?.content]).toEqual(["q", "a b c", "too late"]);
    expect(next?.runId).toBeNull();
  });
});

describe("stop", () => {
  it("during the model call: aborts the Ollama request and stores a stopped message", async () => {
    const id = await newConversation();
    fake().script({ when: { hasTools: true }, hang: true });
    const response = await start({ conversationId: id, message: "q" });
    await fake().waitForRequests(1);
    await stop(jsonRequest("", "POST"), params({ id }));
    const events = await readEvents(response);
    expect(events.findLast((e) => e.event === "done")).toMatchObject({ event: "done", data: { stopped: true } });
    await expect.poll(() => fake().chatRequests()[0]?.aborted).toBe(true);
    await idle(id);
    expect((await listMessages(await getDb(), { conversationId: id })).at(-1)?.status).toBe("stopped");
  });

  it("during a tool: cancels the fetch and keeps the partial trace", async () => {
    // A page that never answers: the fetch hangs until Stop cancels it.
    app.web().routes.set("/hang", { hang: true });
    const id = await newConversation();
    fake().script({
      when: { hasTools: true },
      toolCalls: [{ name: "scrape_url", arguments: { url: `${app.web().url}/hang` } }],
    });
    const reading = readEvents(await start({ conversationId: id, message: "q" }));
    await expect.poll(() => app.web().requests.some((r) => r.path === "/hang")).toBe(true);
    await stop(jsonRequest("", "POST"), params({ id }));
    const events = await reading;
    expect(events.findLast((e) => e.event === "done")).toMatchObject({ event: "done", data: { stopped: true } });
    expect(events.some((e) => e.event === "step" && e.data.type === "tool_call")).toBe(true);
    // Only the first model call was made: the run ended while the tool was still waiting.
    expect(fake().chatRequests()).toHaveLength(1);
    await idle(id);
    expect((await listMessages(await getDb(), { conversationId: id })).at(-1)?.status).toBe("stopped");
  });
});

describe("GET /api/runs/:runId/events", () => {
  /** A run finished in an earlier process: its four stored events (answer start at 2) and its answer. */
  async function storeFinishedRun(answer: string) {
    const id = await newConversation();
    const db = await getDb();
    const run = await createRun(db, { conversationId: id, mode: "native", model: "llama3.2:latest" });
    const usage = { inputTokens: 1, outputTokens: 1, totalTokens: 2 };
    const stored: RunEvent[] = [
      {
        event: "run",
        data: { runId: run.id, conversationId: id, userMessageId: "q1", model: "llama3.2:latest", mode: "native" },
      },
      { event: "answer", data: { status: "start" } },
      { event: "answer", data: { status: "done" } },
      { event: "done", data: { messageId: "a1", iterations: 1, usage, elapsedMs: 5 } },
    ];
    for (const [index, event] of stored.entries()) await appendRunEvent(db, { runId: run.id, seq: index + 1, event });
    await finishRun(db, { runId: run.id, status: "complete", iterations: 1, inputTokens: 1, outputTokens: 1, answer });
    return run;
  }

  it("replays after a dropped client and follows live, with no gap and no duplicate", async () => {
    const id = await newConversation();
    const chunks = Array.from({ length: 20 }, (_, i) => `t${i} `);
    fake().script({ when: { stream: true }, chunks, chunkDelayMs: 25 });
    const first = await readEvents(
      await start({ conversationId: id, message: "q" }),
      (e) => e.event === "answer" && e.data.content === "t4 ",
    );
    const runId = String(first[0]?.data.runId);
    const lastId = first.at(-1)?.id ?? "0";
    expect(lastId).toMatch(/^\d+\.\d+$/);
    const rest = await readEvents(
      await replay(jsonRequest(`/api/runs/${runId}/events?after=${lastId}`, "GET"), params({ runId })),
    );
    expect(answerOf(first) + answerOf(rest)).toBe(chunks.join(""));
    expect(rest.map((e) => e.event)).toContain("done");
    await idle(id);
  });

  it("replays a run finished in an earlier process from the database, its answer as one delta", async () => {
    const run = await storeFinishedRun("Stored answer");
    const again = await readEvents(
      await replay(jsonRequest(`/api/runs/${run.id}/events`, "GET"), params({ runId: run.id })),
    );
    expect(again.map((e) => e.event)).toEqual(["run", "answer", "answer", "answer", "done"]);
    expect(answerOf(again)).toBe("Stored answer");
    const tail = await readEvents(
      await replay(jsonRequest(`/api/runs/${run.id}/events?after=3`, "GET"), params({ runId: run.id })),
    );
    expect(tail.map((e) => e.event)).toEqual(["done"]);
  });

  it("a client that left mid-answer of a run finished in an earlier process gets the whole answer: a start that discards its part, then the stored answer", async () => {
    const run = await storeFinishedRun("Stored answer");
    // The client had the answer's start (event 2) and its first three deltas (2.1 to 2.3).
    const rest = await readEvents(
      await replay(jsonRequest(`/api/runs/${run.id}/events?after=2.3`, "GET"), params({ runId: run.id })),
    );
    expect(rest.map((e) => [e.event, e.data.status, e.id])).toEqual([
      ["answer", "start", "2.4"],
      ["answer", "delta", "2.5"],
      ["answer", "done", "3"],
      ["done", undefined, "4"],
    ]);
    expect(answerOf(rest)).toBe("Stored answer");
  });

  it("a run that just finished can still be resumed exactly from memory", async () => {
    const id = await newConversation();
    fake().script({ when: { stream: true }, chunks: ["a ", "b ", "c"] });
    const live = await readEvents(await start({ conversationId: id, message: "q" }), (e) => e.data.content === "a ");
    await idle(id);
    const runId = String(live[0]?.data.runId);
    const rest = await readEvents(
      await replay(jsonRequest(`/api/runs/${runId}/events?after=${live.at(-1)?.id}`, "GET"), params({ runId })),
    );
    expect(answerOf(live) + answerOf(rest)).toBe("a b c");
  });

  it("answers 404 for an unknown run and 400 for a bad position", async () => {
    expect((await replay(jsonRequest("/api/runs/x/events", "GET"), params({ runId: "x" }))).status).toBe(404);
    await expectApiError(
      await replay(jsonRequest("/api/runs/x/events?after=abc", "GET"), params({ runId: "x" })),
      400,
      "bad_request:after",
    );
  });
});

describe("compaction through the API", () => {
  it("on a small-context model, emits compact, keeps the question, and keeps the summary for the next turn", async () => {
    fake().setModels([
      ...DEFAULT_MODELS,
      {
        name: "tiny:1b",
        family: "llama",
        parameterSize: "1B",
        capabilities: ["completion", "tools"],
        contextLength: 2048,
      },
    ]);
    const page = `<p>${"Long findings sentence. ".repeat(200)}</p>`;
    app.web().routes.set("/big", { body: page });
    const id = await newConversation("tiny:1b");
    // Turn 1: a long answer that later turns cannot carry in full.
    fake().script({ when: { hasTools: true }, content: "First answer. ".repeat(250) });
    await readEvents(await start({ conversationId: id, message: "first question" }));
    await idle(id);
    // Turn 2: tool results overflow the 2048-token context.
    fake().setDefaultResponder((req) => {
      const system = req.messages?.[0]?.content ?? "";
      if (system.startsWith("You compress")) return { content: "Summary: first answer was long." };
      if (!req.tools?.length) return { content: "final" };
      const toolResults = (req.messages ?? []).filter((m) => m.role === "tool").length;
      return toolResults < 2
        ? { toolCalls: [{ name: "scrape_url", arguments: { url: `${app.web().url}/big`, max_chars: 3000 } }] }
        : { content: "enough" };
    });
    const events = await readEvents(await start({ conversationId: id, message: "second question" }));
    await idle(id);
    const compacts = events.filter((e) => e.event === "compact");
    expect(compacts.length).toBeGreaterThan(0);
    expect(compacts[0]?.data).toEqual({
      originalMessages: expect.any(Number),
      keptMessages: expect.any(Number),
      tokensBefore: expect.any(Number),
      tokensAfter: expect.any(Number),
    });
    for (const body of chatBodies()
      .filter(
        (b) =>
          b.tools?.length > 0 &&
          !b.messages[0].content.startsWith("You compress") &&
          !b.messages[0].content.includes("short title"),
      )
      .slice(1)) {
      expect(body.messages.some((m: { content: string }) => m.content === "second question")).toBe(true);
    }
    // After a reload the turn still shows where it was compacted.
    const reloaded = (await (await getOne(jsonRequest("", "GET"), params({ id }))).json()) as {
      messages: { run: { steps: { type: string; tokensBefore?: number }[] } | null }[];
    };
    const steps = reloaded.messages[3]?.run?.steps ?? [];
    expect(steps.some((step) => step.type === "compact" && typeof step.tokensBefore === "number")).toBe(true);
    expect(
      steps
        .filter((step) => step.type === "tool_call")
        .every((step) => typeof (step as { at?: number }).at === "number"),
    ).toBe(true);
    const conversation = await getConversation(await getDb(), { id, ownerId: null });
    expect(conversation.summary).toBe("Summary: first answer was long.");
    // Turn 3 starts from the stored summary instead of the turns it covers.
    fake().setDefaultResponder(() => ({ content: "ok" }));
    await readEvents(await start({ conversationId: id, message: "third question" }));
    await idle(id);
    const third = chatBodies()
      .filter((b) => b.tools?.length > 0)
      .at(-1)?.messages as { content: string }[];
    expect(third.some((m) => m.content === "[Conversation summary]\nSummary: first answer was long.")).toBe(true);
    expect(third.some((m) => m.content === "first question")).toBe(false);
    const detail = (await (await getOne(jsonRequest("", "GET"), params({ id }))).json()) as { messages: unknown[] };
    expect(detail.messages).toHaveLength(6);
  });
});

describe("graceful shutdown", () => {
  it("stores a running run as interrupted with the answer so far, once, and keeps its events with why it ended", async () => {
    const id = await newConversation();
    fake().script({ when: { stream: true }, chunks: Array.from({ length: 30 }, (_, i) => `s${i} `), chunkDelayMs: 30 });
    const events = await readEvents(await start({ conversationId: id, message: "q" }), (e) => e.data.content === "s3 ");
    const runId = String(events[0]?.data.runId);
    expect(await interruptLiveRuns(await getDb(), getLiveRuns())).toBe(1);
    await idle(id);
    await new Promise((resolve) => setTimeout(resolve, 100));
    const assistants = (await listMessages(await getDb(), { conversationId: id })).filter(
      (m) => m.role === "assistant",
    );
    expect(assistants).toHaveLength(1);
    expect(assistants[0]?.status).toBe("interrupted");
    expect(assistants[0]?.content.startsWith("s0 s1 s2 s3")).toBe(true);
    expect((await getRun(await getDb(), { id: runId })).status).toBe("interrupted");
    const stored = await listRunEvents(await getDb(), { runId });
    expect(stored.map((e) => e.event)).toEqual(["run", "answer", "error"]);
    expect(stored.at(-1)?.data).toMatchObject({ code: "unavailable:server_shutdown" });
  });

  // On PostgreSQL nothing can be written without awaiting: the next start's recovery ends such runs.
  it.skipIf(Boolean(process.env.DATABASE_URL))(
    "at process exit, where nothing can be awaited, a running run is stored at once with the answer so far and why",
    async () => {
      const id = await newConversation();
      fake().script({
        when: { stream: true },
        chunks: Array.from({ length: 30 }, (_, i) => `x${i} `),
        chunkDelayMs: 30,
      });
      const events = await readEvents(
        await start({ conversationId: id, message: "q" }),
        (e) => e.data.content === "x3 ",
      );
      const runId = String(events[0]?.data.runId);
      const db = await getDb();
      expect(interruptLiveRunsAtExit(db, getLiveRuns())).toBe(1);
      // Read synchronously, as nothing else runs after an `exit` listener.
      const sqlite = sqliteConnection(db);
      expect(sqlite.prepare("SELECT status FROM runs WHERE id = ?").get(runId)).toEqual({ status: "interrupted" });
      const answer = sqlite.prepare("SELECT status, content FROM messages WHERE run_id = ?").get(runId) as {
        status: string;
        content: string;
      };
      expect(answer.status).toBe("interrupted");
      expect(answer.content.startsWith("x0 x1 x2 x3")).toBe(true);
      const types = sqlite.prepare("SELECT type FROM run_events WHERE run_id = ? ORDER BY seq").all(runId);
      expect(types.at(-1)).toEqual({ type: "error" });
      await idle(id);
      // Stored once: the run's own end, aborted meanwhile, adds nothing.
      expect((await listMessages(db, { conversationId: id })).filter((m) => m.role === "assistant")).toHaveLength(1);
    },
  );

  it.skipIf(Boolean(process.env.DATABASE_URL))(
    "at process exit, the error event stored at once is not written again by the run's queue, so nothing is logged if the process lives on",
    async () => {
      const id = await newConversation();
      fake().script({
        when: { stream: true },
        chunks: Array.from({ length: 30 }, (_, i) => `y${i} `),
        chunkDelayMs: 30,
      });
      const events = await readEvents(
        await start({ conversationId: id, message: "q" }),
        (e) => e.data.content === "y3 ",
      );
      const live = getLiveRuns().get(String(events[0]?.data.runId))!;
      const logged = vi.spyOn(console, "error");
      try {
        expect(interruptLiveRunsAtExit(await getDb(), getLiveRuns())).toBe(1);
        await idle(id);
        expect(await live.writesSettled()).toEqual([]);
        expect(logged).not.toHaveBeenCalled();
      } finally {
        logged.mockRestore();
      }
      const stored = await listRunEvents(await getDb(), { runId: live.runId });
      expect(stored.filter((e) => e.event === "error")).toHaveLength(1);
    },
  );
});
