import { describe, expect, it } from "vitest";
import { emptyRunView, type RunView } from "@/lib/client/run-view";
import type { RunSummary, StoredMessage, StoredStep } from "@/lib/client/types";
import { sampleEvents } from "@/tests/support/run-event-samples";
import { buildChatItems, LOST } from "./chat-items";
import { type LiveTurn, newTurn } from "./live-turn";

const run = (id: string, extra: Partial<RunSummary> = {}): RunSummary => ({
  id,
  status: "complete",
  mode: "native",
  model: "llama3.2:latest",
  iterations: 1,
  usage: { inputTokens: 10, outputTokens: 5, totalTokens: 15 },
  elapsedMs: 120,
  error: null,
  failure: null,
  fallback: false,
  steps: [],
  researchBrief: null,
  research: null,
  ...extra,
});

const user = (id: string, content: string, extra: Partial<StoredMessage> = {}): StoredMessage => ({
  id,
  conversationId: "c1",
  role: "user",
  content,
  status: "complete",
  runId: null,
  attachmentIds: null,
  createdAt: 1,
  parentId: null,
  versions: [id],
  run: null,
  ...extra,
});

const assistant = (id: string, runId: string, content: string, extra: Partial<StoredMessage> = {}): StoredMessage => ({
  id,
  conversationId: "c1",
  role: "assistant",
  content,
  status: "complete",
  runId,
  attachmentIds: null,
  createdAt: 2,
  parentId: null,
  versions: [id],
  run: run(runId),
  ...extra,
});

const turn = (runExtra: Partial<RunView> = {}, extra: Partial<LiveTurn> = {}): LiveTurn => ({
  ...newTurn({ conversationId: "c1", question: "Why?" }),
  run: emptyRunView({ runId: "r2", userMessageId: "u2", answer: "Because", answering: true, ...runExtra }),
  ...extra,
});

const summary = (items: ReturnType<typeof buildChatItems>) =>
  items.map((item) =>
    item.kind === "user"
      ? `user${item.interruptPending ? "(interrupt pending)" : ""}:${item.content}`
      : item.kind === "unsent"
        ? `unsent:${item.content}`
        : `assistant:${item.status}:${item.run.answer}`,
  );

describe("buildChatItems", () => {
  const history = [user("u1", "Hi"), assistant("a1", "r1", "Hello")];

  it("appends the live question and answer after the stored messages", () => {
    const items = buildChatItems({ messages: history, turns: [turn()] });
    expect(summary(items)).toEqual(["user:Hi", "assistant:complete:Hello", "user:Why?", "assistant:streaming:Because"]);
  });

  it("shows the live question once when the store already has it", () => {
    const items = buildChatItems({ messages: [...history, user("u2", "Why?")], turns: [turn()] });
    expect(summary(items)).toEqual(["user:Hi", "assistant:complete:Hello", "user:Why?", "assistant:streaming:Because"]);
  });

  it("lets the stored answer replace the live one once its run is stored, keeping the same row key", () => {
    const stored = [...history, user("u2", "Why?"), assistant("a2", "r2", "Because.")];
    const items = buildChatItems({ messages: stored, turns: [turn({ status: "complete", answer: "Because." })] });
    expect(summary(items)).toEqual(["user:Hi", "assistant:complete:Hello", "user:Why?", "assistant:complete:Because."]);
    const liveKey = buildChatItems({ messages: history, turns: [turn()] }).at(-1)?.key;
    expect(items.at(-1)?.key).toBe(liveKey);
  });

  it("shows a run joined after a reload under its stored question, without inventing one", () => {
    const joined = { ...turn(), question: null };
    const items = buildChatItems({ messages: [...history, user("u2", "Why?")], turns: [joined] });
    expect(summary(items)).toEqual(["user:Hi", "assistant:complete:Hello", "user:Why?", "assistant:streaming:Because"]);
  });

  it("marks a turn whose stream could not be resumed as failed, saying why", () => {
    const items = buildChatItems({ messages: history, turns: [turn({}, { lost: true })] });
    expect(items.at(-1)).toMatchObject({ status: "error", live: false, run: { failure: LOST } });
  });

  it("shows a failed answer as the model wrote it, and the error from its run as the notice", () => {
    const failed = assistant("a2", "r2", "Partial", {
      status: "error",
      run: run("r2", { status: "error", error: "model runner has unexpectedly stopped" }),
    });
    const empty = assistant("a3", "r3", "", {
      status: "error",
      run: run("r3", { status: "error", error: "Ollama error: boom" }),
    });
    const unknown = (message: string) => ({ code: "client:unknown_code", message });
    expect(buildChatItems({ messages: [failed, empty] })).toMatchObject([
      { status: "error", run: { answer: "Partial", failure: unknown("model runner has unexpectedly stopped") } },
      { status: "error", run: { answer: "", answering: false, failure: unknown("Ollama error: boom") } },
    ]);
  });

  it("takes a stored run's failure from its stored error event, whose code and details word it in the user's language", () => {
    const failure = {
      code: "upstream:ollama_timeout" as const,
      message: "Ollama did not finish within 5 s.",
      retryable: true,
      details: { seconds: 5 },
    };
    const failed = assistant("a2", "r2", "", {
      status: "error",
      run: run("r2", { status: "error", error: failure.message, failure }),
    });
    expect(buildChatItems({ messages: [failed] })).toMatchObject([{ status: "error", run: { failure } }]);
  });

  it("shows why a run was cut off or stopped from outside, from the run, and no notice for a plain stop", () => {
    const cutOff = assistant("a2", "r2", "Half", {
      status: "interrupted",
      run: run("r2", { status: "interrupted", error: "The server shut down while this answer was being written." }),
    });
    const stopped = assistant("a3", "r3", "Some", { status: "stopped", run: run("r3", { status: "stopped" }) });
    expect(buildChatItems({ messages: [cutOff, stopped] })).toMatchObject([
      {
        status: "interrupted",
        run: {
          answer: "Half",
          failure: {
            code: "client:unknown_code",
            message: "The server shut down while this answer was being written.",
          },
        },
      },
      { status: "stopped", run: { answer: "Some", failure: null } },
    ]);
  });

  it("shows held follow-ups after their run's answer: unsent ones to send or discard, queued ones pending; not those a turn is sending", () => {
    const messages = [user("u1", "Q"), assistant("a1", "r1", "A"), user("u2", "Q2"), assistant("a2", "r2", "A2")];
    const held = (id: string, runId: string, text: string, unsent: boolean) => ({
      id,
      runId,
      text,
      createdAt: 1,
      unsent,
    });
    const interrupts = [
      held("i1", "r1", "first", true),
      held("i2", "r1", "second", true),
      held("i3", "gone", "x", true),
    ];
    expect(summary(buildChatItems({ messages, interrupts }))).toEqual([
      "user:Q",
      "assistant:complete:A",
      "unsent:first",
      "unsent:second",
      "user:Q2",
      "assistant:complete:A2",
      "unsent:x",
    ]);
    const sending = { ...newTurn({ conversationId: "c1", question: "second", interruptIds: ["i2"] }) };
    const queued = held("i4", "r9", "queued", false);
    const live = { ...newTurn({ conversationId: "c1", question: "Q3", runId: "r9" }) };
    expect(summary(buildChatItems({ messages, interrupts: [...interrupts, queued], turns: [sending] }))).not.toContain(
      "unsent:second",
    );
    expect(summary(buildChatItems({ messages, interrupts: [queued], turns: [live] })).slice(-3)).toEqual([
      "user:Q3",
      "assistant:streaming:",
      "user(interrupt pending):queued",
    ]);
  });

  it("shows a stored draft as a draft, with why the final answer failed", () => {
    const draft = assistant("a4", "r4", "The draft.", {
      run: run("r4", { fallback: true, error: "Ollama error: out of memory" }),
    });
    expect(buildChatItems({ messages: [draft] })).toMatchObject([
      {
        status: "complete",
        run: {
          answer: "The draft.",
          fallback: true,
          failure: { code: "client:unknown_code", message: "Ollama error: out of memory" },
        },
      },
    ]);
  });

  it("rebuilds a stored run's tool cards from its stored steps", () => {
    const steps: StoredStep[] = [
      { seq: 2, at: 0, iteration: 1, type: "tool_call", callId: "c1", tool: "scrape_url", args: { url: "http://x" } },
      {
        seq: 3,
        at: 0,
        iteration: 1,
        type: "tool_result",
        callId: "c1",
        tool: "scrape_url",
        ok: true,
        observation: "Page",
        durationMs: 40,
      },
    ];
    const [item] = buildChatItems({ messages: [assistant("a1", "r1", "Done", { run: run("r1", { steps }) })] });
    expect(item?.kind === "assistant" && item.run.timeline).toMatchObject([
      { kind: "tool", tool: "scrape_url", result: { ok: true, observation: "Page", durationMs: 40 } },
    ]);
  });

  it("shows a stored run's compactions again, where they happened", () => {
    const steps: StoredStep[] = [
      { seq: 2, at: 0, iteration: 1, type: "thinking", text: "Hmm" },
      { type: "compact", seq: 3, originalMessages: 14, keptMessages: 6, tokensBefore: 9800, tokensAfter: 3100 },
    ];
    const [item] = buildChatItems({ messages: [assistant("a1", "r1", "Done", { run: run("r1", { steps }) })] });
    expect(item?.kind === "assistant" && item.run.timeline).toMatchObject([
      { kind: "thinking" },
      { kind: "compact", key: "compact:3", originalMessages: 14, keptMessages: 6 },
    ]);
  });

  it("shows interrupts the run took inside their run, not as questions of their own", () => {
    const injected = user("u3", "Also check B", { runId: "r2", createdAt: 2 });
    const stored = [...history, user("u2", "Why?"), injected, assistant("a2", "r2", "Because.")];
    expect(summary(buildChatItems({ messages: stored }))).toEqual([
      "user:Hi",
      "assistant:complete:Hello",
      "user:Why?",
      "assistant:complete:Because.",
    ]);
  });

  it("shows interrupts not taken yet after the live answer, marked pending", () => {
    const live = turn({}, { interrupts: [{ key: "k1", text: "Also check B", id: "i1" }] });
    expect(summary(buildChatItems({ messages: history, turns: [live] })).slice(-2)).toEqual([
      "assistant:streaming:Because",
      "user(interrupt pending):Also check B",
    ]);
  });

  it("keeps a finished turn until the store has it while the next turn already runs", () => {
    const first = turn({ status: "complete", answer: "Because." });
    const second = {
      ...newTurn({ conversationId: "c1", question: "Also B" }),
      run: emptyRunView({ runId: "r3", userMessageId: "u3" }),
    };
    expect(summary(buildChatItems({ messages: history, turns: [first, second] })).slice(2)).toEqual([
      "user:Why?",
      "assistant:complete:Because.",
      "user:Also B",
      "assistant:streaming:",
    ]);
  });

  it("shows on a stored question the files the server says it was sent with, skipping deleted ones", () => {
    const messages = [user("u1", "Read this", { attachmentIds: ["f1", "gone"] }), user("u2", "And this")];
    const files = [
      { id: "f1", filename: "a.pdf", mime: "application/pdf", size: 10, pageCount: 2 },
      { id: "f2", filename: "b.png", mime: "image/png", size: 5, pageCount: null },
    ];
    const items = buildChatItems({ messages, files });
    expect(items.map((item) => (item.kind === "user" ? item.attachments.map((a) => a.id) : []))).toEqual([["f1"], []]);
  });

  it("reuses the item objects of unchanged stored messages, so memoised rows skip re-rendering", () => {
    const first = buildChatItems({ messages: history });
    const second = buildChatItems({ messages: history, turns: [turn()] });
    expect(second[0]).toBe(first[0]);
    expect(second[1]).toBe(first[1]);
  });

  it("hides the stored turn a regenerate or edit replaces, and shows the replacing turn instead", () => {
    const replacing = turn({}, { question: "Why not?", replaces: ["u1", "a1"] });
    expect(summary(buildChatItems({ messages: history, turns: [replacing] }))).toEqual([
      "user:Why not?",
      "assistant:streaming:Because",
    ]);
  });
});

describe("a stored answer's citation report", () => {
  it("is carried to the answer's run view; an answer without one has none", () => {
    const citations = {
      checks: [{ sentence: "A.", start: 0, end: 6, n: 1, verdict: "supported" as const, passage: null, missing: [] }],
      checkedAt: 1,
    };
    const items = buildChatItems({
      messages: [user("u1", "Q"), assistant("a1", "r1", "A [1].", { citations }), assistant("a2", "r2", "B.")],
    });
    const runs = items.flatMap((item) => (item.kind === "assistant" ? [item.run.citations] : []));
    expect(runs).toEqual([citations, null]);
  });
});

describe("a stored research run", () => {
  it("brings its brief and its last progress to the answer's run view, so a reload rebuilds the cards", () => {
    const [researchBrief] = sampleEvents.research_brief;
    const [research] = sampleEvents.research;
    const items = buildChatItems({
      messages: [
        user("u1", "Q"),
        assistant("a1", "r1", "brief", { run: run("r1", { mode: "research", researchBrief: researchBrief ?? null }) }),
        user("u2", "brief"),
        assistant("a2", "r2", "report", { run: run("r2", { mode: "research", research: research ?? null }) }),
      ],
    });
    const views = items.flatMap((item) => (item.kind === "assistant" ? [item.run] : []));
    expect(views.map((view) => [view.researchBrief, view.research])).toEqual([
      [researchBrief, null],
      [null, research],
    ]);
  });
});
