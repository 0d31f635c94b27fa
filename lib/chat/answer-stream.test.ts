import { afterEach, describe, expect, it, vi } from "vitest";
import type { AnswerPart } from "@/lib/protocol/run-events";
import { AnswerStream } from "./answer-stream";
import { LiveRun } from "./live-run";

/** The answer as it streams: one owner accumulates it and saves the text so far, at most once a second. */

function stream({ saveEveryMs = 1000 } = {}) {
  let now = 0;
  const sent: { part: AnswerPart; store: boolean }[] = [];
  const saved: string[] = [];
  const answer = new AnswerStream({
    emit: (part, store) => sent.push({ part, store }),
    savePartial: (text) => saved.push(text),
    saveEveryMs,
    now: () => now,
  });
  const delta = (content: string, at: number) => {
    now = at;
    answer.push({ status: "delta", content });
  };
  const startAt = (at: number) => {
    now = at;
    answer.startSaving();
  };
  return { answer, sent, saved, delta, startAt };
}

afterEach(() => vi.restoreAllMocks());

describe("AnswerStream", () => {
  it("saves the whole text so far at most once per interval, never a delta alone", () => {
    const { answer, saved, delta } = stream();
    answer.push({ status: "start" });
    delta("One ", 400);
    delta("two ", 900);
    expect(saved).toEqual([]);
    delta("three ", 1001);
    delta("four ", 1500);
    delta("five", 2002);
    expect(saved).toEqual(["One two three ", "One two three four five"]);
    expect(answer.text).toBe("One two three four five");
  });

  it("the interval between partial saves counts from the run's start, not from its reservation", () => {
    const { answer, saved, delta, startAt } = stream();
    startAt(5000);
    answer.push({ status: "start" });
    delta("Early", 5500);
    expect(saved).toEqual([]);
    delta(" and late", 6001);
    expect(saved).toEqual(["Early and late"]);
  });

  it("a start begins the text again: a reply discarded for a tool call is not part of the answer or its saves", () => {
    const { answer, saved, delta } = stream();
    answer.push({ status: "start" });
    delta("Let me look that up", 100);
    answer.push({ status: "start" });
    delta("The answer.", 1500);
    expect(answer.text).toBe("The answer.");
    expect(saved).toEqual(["The answer."]);
  });

  it("sends deltas live only and stores its start and done; done only for an answer that began", () => {
    const quiet = stream();
    quiet.answer.finish();
    expect(quiet.sent).toEqual([]);
    expect(quiet.answer.started).toBe(false);

    const { answer, sent, delta } = stream();
    answer.push({ status: "start" });
    delta("Hi", 10);
    answer.finish();
    expect(sent).toEqual([
      { part: { status: "start" }, store: true },
      { part: { status: "delta", content: "Hi" }, store: false },
      { part: { status: "done" }, store: true },
    ]);
  });

  it("a live run's partial saves go through its write queue, in order with its events", async () => {
    const written: string[] = [];
    let now = Date.now();
    vi.spyOn(Date, "now").mockImplementation(() => now);
    const live = new LiveRun({
      runId: "r",
      conversationId: "c",
      interruptLimits: { maxCount: 1, maxBytes: 10 },
      persist: async (event) => {
        written.push(event.event);
      },
      savePartialAnswer: async (text) => {
        written.push(`partial: ${text}`);
      },
    });
    live.answer.push({ status: "start" });
    now += 1500;
    live.answer.push({ status: "delta", content: "Half" });
    live.emitStep({ type: "notice", iteration: 1, text: "t" }, now);
    await live.writesSettled();
    expect(written).toEqual(["answer", "partial: Half", "step"]);
    expect(live.answer.text).toBe("Half");
  });
});
