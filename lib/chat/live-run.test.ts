import { describe, expect, it, vi } from "vitest";
import type { RunDone, RunStarted, SentRunEvent } from "@/lib/protocol/run-events";
import { LiveRun, LiveRuns } from "./live-run";

const interruptLimits = { maxCount: 20, maxBytes: 65_536 };

const started: RunStarted = {
  runId: "run-1",
  conversationId: "conv-1",
  userMessageId: "m1",
  model: "m",
  mode: "native",
};
const done: RunDone = {
  messageId: "a1",
  iterations: 1,
  usage: { inputTokens: 0, outputTokens: 0, totalTokens: 0 },
  elapsedMs: 5,
};

function newRun({ runId = "run-1", conversationId = "conv-1", ownerId = null as string | null } = {}) {
  const persisted: { event: string; data: unknown; seq: number }[] = [];
  const run = new LiveRun({
    runId,
    conversationId,
    ownerId,
    persist: async ({ event, data }, seq) => {
      persisted.push({ event, data, seq });
    },
    interruptLimits,
  });
  return { run, persisted };
}

const roomy = { perUser: 10, total: 10 };

describe("LiveRun", () => {
  it("numbers and persists stored events, and never persists answer deltas", async () => {
    const { run, persisted } = newRun();
    run.emit("run", started);
    run.emit("answer", { status: "delta", content: "x" }, { store: false });
    run.emit("done", done);
    await run.writesSettled();
    expect(persisted).toEqual([
      { event: "run", data: started, seq: 1 },
      { event: "done", data: done, seq: 2 },
    ]);
  });

  it("stores events in seq order, one write after the other, without the emitter waiting", async () => {
    const written: number[] = [];
    let writing = 0;
    const run = new LiveRun({
      runId: "run-1",
      conversationId: "conv-1",
      interruptLimits,
      // The first write is the slowest: started together, they would finish in reverse.
      persist: async (_event, seq) => {
        writing++;
        expect(writing).toBe(1);
        await new Promise((resolve) => setTimeout(resolve, 30 - seq * 10));
        written.push(seq);
        writing--;
      },
    });
    run.emit("run", started);
    run.emitStep({ type: "notice", iteration: 1, text: "t" }, 7);
    run.emit("done", done);
    expect(written).toEqual([]);
    await run.writesSettled();
    expect(written).toEqual([1, 2, 3]);
  });

  it("a write that fails is logged and reported, and the writes after it still go", async () => {
    const error = vi.spyOn(console, "error").mockImplementation(() => {});
    const written: number[] = [];
    const run = new LiveRun({
      runId: "run-1",
      conversationId: "conv-1",
      interruptLimits,
      persist: async (_event, seq) => {
        if (seq === 1) throw new Error("disk full");
        written.push(seq);
      },
    });
    run.emit("run", started);
    run.emit("done", done);
    const failures = await run.writesSettled();
    expect(failures).toEqual([new Error("disk full")]);
    expect(written).toEqual([2]);
    expect(error).toHaveBeenCalledWith("[run] could not store event 1 of run run-1", new Error("disk full"));
    error.mockRestore();
  });

  it("a subscriber joining late gets the whole stream so far, then live events", () => {
    const { run } = newRun();
    run.emit("run", started);
    run.emit("answer", { status: "delta", content: "x" }, { store: false });
    const seen: SentRunEvent[] = [];
    run.subscribe(
      (event) => seen.push(event),
      () => {},
    );
    run.emit("done", done);
    expect(seen.map((e) => e.event)).toEqual(["run", "answer", "done"]);
  });

  it("numbers deltas after the last stored event and resumes exactly after any id", () => {
    const { run } = newRun();
    run.emit("run", started);
    run.emit("answer", { status: "start" });
    run.emit("answer", { status: "delta", content: "a" }, { store: false });
    run.emit("answer", { status: "delta", content: "b" }, { store: false });
    run.emitStep({ type: "notice", iteration: 1, text: "t" }, 0);
    const ids = (after: string) => {
      const seen: SentRunEvent[] = [];
      run.subscribe(
        (event) => seen.push(event),
        () => {},
        after,
      );
      return seen.map((e) => e.id);
    };
    expect(ids("0")).toEqual(["1", "2", "2.1", "2.2", "3"]);
    expect(ids("1")).toEqual(["2", "2.1", "2.2", "3"]);
    expect(ids("2.1")).toEqual(["2.2", "3"]);
    expect(ids("3")).toEqual([]);
  });

  it("puts the sequence number into step data", async () => {
    const { run, persisted } = newRun();
    run.emit("run", started);
    run.emitStep({ type: "notice", iteration: 1, text: "t" }, 7);
    await run.writesSettled();
    expect(persisted[1]).toEqual({
      event: "step",
      data: { seq: 2, at: 7, type: "notice", iteration: 1, text: "t" },
      seq: 2,
    });
  });

  it("closes subscribers at the end and ignores events after it", () => {
    const { run, persisted } = newRun();
    let closed = 0;
    run.subscribe(
      () => {},
      () => closed++,
    );
    run.end();
    run.emit("done", done);
    expect(closed).toBe(1);
    expect(persisted).toEqual([]);
    let closedLate = 0;
    run.subscribe(
      () => {},
      () => closedLate++,
    );
    expect(closedLate).toBe(1);
  });
});

describe("LiveRuns", () => {
  it("keeps a finished run reachable by id for a grace period, but frees the conversation at once", async () => {
    const runs = new LiveRuns(20);
    const { run } = newRun();
    runs.reserve(run, roomy);
    runs.remove(run);
    expect(runs.forConversation("conv-1")).toBeUndefined();
    expect(runs.get("run-1")).toBe(run);
    await new Promise((resolve) => setTimeout(resolve, 40));
    expect(runs.get("run-1")).toBeUndefined();
  });

  it("finds a run by conversation and by id until it is removed", () => {
    const runs = new LiveRuns(0);
    const { run } = newRun();
    runs.reserve(run, roomy);
    expect(runs.forConversation("conv-1")).toBe(run);
    expect(runs.get("run-1")).toBe(run);
    runs.remove(run);
    expect(runs.forConversation("conv-1")).toBeUndefined();
    expect(runs.size).toBe(0);
  });

  it("reserves one slot per conversation, within the per-user and total caps, and says which one refused", () => {
    const runs = new LiveRuns(0);
    const limits = { perUser: 2, total: 3 };
    expect(runs.reserve(newRun({ runId: "a1", conversationId: "c1", ownerId: "alice" }).run, limits)).toBeNull();
    expect(runs.reserve(newRun({ runId: "a2", conversationId: "c1", ownerId: "alice" }).run, limits)).toBe(
      "conversation",
    );
    expect(runs.reserve(newRun({ runId: "a3", conversationId: "c2", ownerId: "alice" }).run, limits)).toBeNull();
    expect(runs.reserve(newRun({ runId: "a4", conversationId: "c3", ownerId: "alice" }).run, limits)).toBe("per_user");
    expect(runs.reserve(newRun({ runId: "b1", conversationId: "c4", ownerId: "bob" }).run, limits)).toBeNull();
    expect(runs.reserve(newRun({ runId: "b2", conversationId: "c5", ownerId: "bob" }).run, limits)).toBe("total");
    expect(runs.size).toBe(3);
    expect(runs.ownedBy("alice").map((run) => run.runId)).toEqual(["a1", "a3"]);
  });

  it("a released reservation frees its slot and its id at once", () => {
    const runs = new LiveRuns(60_000);
    const { run } = newRun();
    expect(runs.reserve(run, { perUser: 1, total: 1 })).toBeNull();
    runs.release(run);
    expect(runs.size).toBe(0);
    expect(runs.get("run-1")).toBeUndefined();
    expect(runs.reserve(newRun({ runId: "run-2" }).run, { perUser: 1, total: 1 })).toBeNull();
  });
});
