import { describe, expect, it } from "vitest";
import type { RunEvent } from "@/lib/protocol/run-events";
import { applyToTurn, interruptAccepted, type LiveTurn, newTurn, type SentInterrupt } from "./live-turn";

const withInterrupts = (...interrupts: SentInterrupt[]): LiveTurn => ({
  ...newTurn({ conversationId: "c1", question: "Q" }),
  interrupts,
});

const taking = (seq: number, ...interrupts: { id: string; text: string }[]): RunEvent => ({
  event: "step",
  data: { seq, at: 0, iteration: 2, type: "interrupt", interrupts },
  id: String(seq),
});

describe("live turns", () => {
  it("an interrupt the run takes leaves the turn by its id, not another one with the same text", () => {
    const turn = applyToTurn(
      withInterrupts({ key: "k1", text: "yes", id: "i1" }, { key: "k2", text: "yes", id: "i2" }),
      taking(4, { id: "i2", text: "yes" }),
    );
    expect(turn.interrupts.map((sent) => sent.key)).toEqual(["k1"]);
    expect(turn.run.timeline).toMatchObject([{ kind: "interrupt", interrupts: [{ id: "i2", text: "yes" }] }]);
  });

  it("an interrupt of another tab with the same text leaves this page's interrupt where it is", () => {
    const turn = applyToTurn(
      withInterrupts({ key: "k1", text: "yes", id: "i1" }),
      taking(4, { id: "x9", text: "yes" }),
    );
    expect(turn.interrupts.map((sent) => sent.key)).toEqual(["k1"]);
  });

  it("an interrupt the run took before its 202 arrived leaves the turn when its id comes", () => {
    const sent = withInterrupts({ key: "k1", text: "Also B", id: null }, { key: "k2", text: "Also B", id: null });
    const taken = applyToTurn(sent, taking(4, { id: "i1", text: "Also B" }));
    expect(taken.interrupts.map((s) => s.key)).toEqual(["k1", "k2"]);
    const accepted = interruptAccepted(interruptAccepted(taken, "k1", "i1"), "k2", "i2");
    expect(accepted.interrupts).toEqual([{ key: "k2", text: "Also B", id: "i2" }]);
  });

  it("at done, interrupts the server accepted leave the turn (the server holds them); one still on its way stays", () => {
    const turn = withInterrupts({ key: "k1", text: "yes", id: "i1" }, { key: "k2", text: "also", id: null });
    const done = applyToTurn(turn, {
      event: "done",
      data: {
        messageId: "m",
        iterations: 1,
        usage: { inputTokens: 0, outputTokens: 0, totalTokens: 0 },
        elapsedMs: 1,
        pendingInterrupts: [{ id: "i1", text: "yes" }],
      },
    });
    expect(done.interrupts.map((sent) => sent.key)).toEqual(["k2"]);
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
