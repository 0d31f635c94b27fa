import { describe, expect, it } from "vitest";
import type { RunDone, RunEvent, RunStep } from "@/lib/protocol/run-events";
import { applyRunEvent, emptyRunView, type RunView, reachedIterationLimit, timelineFromSteps } from "./run-view";

const fold = (events: RunEvent[], start: RunView = emptyRunView()) =>
  events.reduce((view, event) => applyRunEvent(view, event, 1000), start);

const step = (data: RunStep, id = String(data.seq)): RunEvent => ({ event: "step", data, id });
const call = (seq: number, callId: string, tool = "scrape_url"): RunStep => ({
  seq,
  at: 0,
  iteration: 1,
  type: "tool_call",
  callId,
  tool,
  args: { url: `http://example.test/${callId}` },
});
const result = (seq: number, callId: string, ok = true): RunStep => ({
  seq,
  at: 0,
  iteration: 1,
  type: "tool_result",
  callId,
  tool: "scrape_url",
  ok,
  observation: `text of ${callId}`,
  durationMs: 25,
});
const delta = (content: string, id: string): RunEvent => ({
  event: "answer",
  data: { status: "delta", content },
  id,
});

const done = (extra: Partial<RunDone>): RunEvent => ({
  event: "done",
  data: {
    messageId: "m",
    iterations: 2,
    usage: { inputTokens: 1, outputTokens: 2, totalTokens: 3 },
    elapsedMs: 9,
    ...extra,
  },
});

describe("applyRunEvent", () => {
  it("pairs each tool result with its call by call id, whatever order they finish in", () => {
    const view = fold([step(call(2, "a")), step(call(3, "b")), step(result(4, "b", false)), step(result(5, "a"))]);
    expect(view.timeline).toMatchObject([
      { kind: "tool", callId: "a", startedAt: 1000, result: { ok: true, observation: "text of a" } },
      { kind: "tool", callId: "b", result: { ok: false, observation: "text of b" } },
    ]);
  });

  it("keeps thinking, interrupts, notices, tool selection and compaction in the order they happened", () => {
    const view = fold([
      step({ seq: 2, at: 0, iteration: 1, type: "tool_selection", selected: ["web_search"], total: 14 }),
      step({ seq: 3, at: 0, iteration: 1, type: "thinking", text: "Hmm" }),
      step(call(4, "a")),
      {
        event: "compact",
        data: { originalMessages: 14, keptMessages: 6, tokensBefore: 9800, tokensAfter: 3100 },
        id: "5",
      },
      step({ seq: 6, at: 0, iteration: 2, type: "interrupt", interrupts: [{ id: "i1", text: "Also B" }] }),
      step({ seq: 7, at: 0, iteration: 2, type: "notice", text: "Tool budget reached" }),
    ]);
    expect(view.timeline.map((entry) => entry.kind)).toEqual([
      "tool_selection",
      "thinking",
      "tool",
      "compact",
      "interrupt",
      "notice",
    ]);
  });

  it("ignores a replayed step it already has, so a reconnect that overlaps adds no duplicate card", () => {
    const thinking = step({ seq: 3, at: 0, iteration: 1, type: "thinking", text: "Hmm" });
    const once = fold([step(call(2, "a")), thinking]);
    const twice = fold([step(call(2, "a")), thinking], once);
    expect(twice.timeline).toHaveLength(2);
  });

  it("appends answer deltas and remembers the last event id to resume after", () => {
    const view = fold([
      { event: "answer", data: { status: "start" }, id: "7" },
      delta("Hello ", "7.1"),
      delta("world", "7.2"),
    ]);
    expect(view).toMatchObject({ answer: "Hello world", answering: true, answerStarted: true, lastEventId: "7.2" });
  });

  it("discards the answer so far on a second answer start (the server falls back to another answer)", () => {
    const view = fold([
      { event: "answer", data: { status: "start" }, id: "7" },
      delta("Half a synth", "7.1"),
      { event: "answer", data: { status: "start" }, id: "8" },
      delta("The loop's answer", "8.1"),
    ]);
    expect(view.answer).toBe("The loop's answer");
  });

  it("ends as stopped, complete or error from done, keeping an earlier error", () => {
    expect(fold([done({ stopped: true })]).status).toBe("stopped");
    expect(fold([done({ pendingInterrupts: [{ id: "i1", text: "Also B" }] })])).toMatchObject({
      status: "complete",
      iterations: 2,
    });
    const failed = fold([{ event: "error", data: { code: "internal", message: "boom", retryable: false } }, done({})]);
    expect(failed).toMatchObject({ status: "error", failure: { code: "internal", message: "boom" } });
  });

  it("an answer cut by a failure ends interrupted with its text and reason; a draft in place of a failed synthesis ends complete with the reason", () => {
    const failure: RunEvent = { event: "error", data: { code: "upstream:ollama", message: "boom", retryable: true } };
    const start: RunEvent = { event: "answer", data: { status: "start" }, id: "2" };
    expect(fold([start, delta("Half", "2.1"), failure, done({ interrupted: true })])).toMatchObject({
      status: "interrupted",
      answer: "Half",
      failure: { code: "upstream:ollama", message: "boom" },
    });
    expect(fold([start, delta("Draft.", "2.1"), failure, done({ fallback: true })])).toMatchObject({
      status: "complete",
      answer: "Draft.",
      fallback: true,
      failure: { code: "upstream:ollama", message: "boom" },
    });
  });

  it("a run that stopped at MAX_ITERATIONS says so: from done live, from its iteration_limit notice when stored", () => {
    expect(fold([done({})]).iterationLimit).toBe(false);
    expect(fold([done({ iterationLimit: true })]).iterationLimit).toBe(true);
    const notice: RunStep = {
      seq: 4,
      at: 0,
      iteration: 50,
      type: "notice",
      text: "Stopped after 50 model calls, the limit for one answer: the answer is written from what was found so far.",
      about: { code: "iteration_limit", iterations: 50 },
    };
    const stored = timelineFromSteps([call(2, "a"), result(3, "a"), notice]);
    expect(stored.at(-1)).toMatchObject({ kind: "notice", about: { code: "iteration_limit", iterations: 50 } });
    expect(reachedIterationLimit(stored)).toBe(true);
    expect(reachedIterationLimit(timelineFromSteps([{ ...notice, about: undefined }]))).toBe(false);
  });

  it("builds a stored run's timeline from its steps, with no live timer", () => {
    expect(timelineFromSteps([call(2, "a"), result(3, "a")])).toMatchObject([
      { kind: "tool", startedAt: null, result: { ok: true } },
    ]);
  });

  it("grows a live thinking block from thinking deltas and puts the whole thinking with its duration in its place", () => {
    const thinking = (delta: string, id: string): RunEvent => ({
      event: "thinking",
      data: { iteration: 1, delta },
      id,
    });
    const growing = fold([thinking("Let me ", "1.1"), thinking("think.", "1.2")]);
    expect(growing.timeline).toMatchObject([{ kind: "thinking", live: true, text: "Let me think.", durationMs: null }]);
    const whole = fold(
      [
        step(call(2, "a")),
        step({ seq: 3, at: 0, iteration: 1, type: "thinking", text: "Let me think.", durationMs: 2500 }),
      ],
      growing,
    );
    expect(whole.timeline.map((entry) => entry.kind)).toEqual(["thinking", "tool"]);
    expect(whole.timeline[0]).toMatchObject({ kind: "thinking", live: false, text: "Let me think.", durationMs: 2500 });
  });

  it("leaves the working state at done, whatever comes after it", () => {
    const view = fold([
      { event: "answer", data: { status: "start" }, id: "1" },
      delta("Hi", "1.1"),
      {
        event: "done",
        data: {
          messageId: "m",
          iterations: 1,
          usage: { inputTokens: 1, outputTokens: 1, totalTokens: 2 },
          elapsedMs: 5,
          titlePending: true,
        },
        id: "2",
      },
    ]);
    expect(view.status).toBe("complete");
    expect(fold([{ event: "title", data: { title: "Greeting" }, id: "2.1" }], view).status).toBe("complete");
  });
});

describe("citation reports", () => {
  const report = (verdict: "found" | "supported") => ({
    checks: [{ sentence: "A.", start: 0, end: 6, n: 1, verdict, passage: null, missing: [] }],
    checkedAt: 1,
  });

  it("a run's citations event gives the answer its report; a later one replaces it", () => {
    const first = fold([delta("A [1].", "1.1"), { event: "citations", data: report("found"), id: "2" }]);
    expect(first.citations?.checks[0]?.verdict).toBe("found");
    expect(first.lastEventId).toBe("2");
    const again = fold([{ event: "citations", data: report("supported"), id: "3" }], first);
    expect(again.citations?.checks[0]?.verdict).toBe("supported");
    expect(again.answer).toBe("A [1].");
  });
});
