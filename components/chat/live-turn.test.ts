import { describe, expect, it } from "vitest";
import { applyToTurn, type LiveTurn, newTurn, untakenMessages, withoutInjected } from "./live-turn";

const queued = (...texts: string[]) => texts.map((text, index) => ({ key: `q${index}`, text }));

const withQueue = (...texts: string[]): LiveTurn => ({
  ...newTurn({ conversationId: "c1", question: "Q" }),
  queued: queued(...texts),
});

describe("live turns", () => {
  it("takes injected messages off the queue once each, by text", () => {
    expect(withoutInjected(queued("A", "B", "A"), ["A", "B"]).map((q) => q.text)).toEqual(["A"]);
  });

  it("moves a queued message into the run when the interrupt step arrives", () => {
    const turn = applyToTurn(withQueue("Also B", "And C"), {
      event: "step",
      data: { seq: 4, iteration: 2, type: "interrupt", messages: ["Also B"] },
      id: "4",
    });
    expect(turn.queued.map((q) => q.text)).toEqual(["And C"]);
    expect(turn.run.timeline).toMatchObject([{ kind: "interrupt", messages: ["Also B"] }]);
  });

  it("hands back what the run never took: its pending interrupts and anything still queued, each once", () => {
    const turn = withQueue("Also B", "Late one");
    const ended = { ...turn, run: { ...turn.run, status: "complete" as const, pendingInterrupts: ["Also B"] } };
    expect(untakenMessages(ended)).toEqual(["Also B", "Late one"]);
  });

  it("clears stopping once the run has ended", () => {
    const stopping = { ...newTurn({ conversationId: "c1", question: "Q" }), stopping: true };
    const done = applyToTurn(stopping, {
      event: "done",
      data: {
        messageId: "m",
        iterations: 1,
        usage: { inputTokens: 0, outputTokens: 0, totalTokens: 0 },
        elapsedMs: 1,
        stopped: true,
      },
    });
    expect(done).toMatchObject({ stopping: false, run: { status: "stopped" } });
  });
});
