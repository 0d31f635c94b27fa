import { describe, expect, it } from "vitest";
import type { SseEvent } from "@/lib/http/sse";
import { LiveRun, LiveRuns } from "./live-run";

function newRun() {
  const persisted: { event: string; data: unknown; id: number }[] = [];
  const run = new LiveRun("run-1", "conv-1", (event) => persisted.push(event));
  return { run, persisted };
}

describe("LiveRun", () => {
  it("numbers and persists stored events, and never persists answer deltas", () => {
    const { run, persisted } = newRun();
    run.emit("run", { a: 1 });
    run.emit("answer", { status: "delta", content: "x" }, { store: false });
    run.emit("done", {});
    expect(persisted).toEqual([
      { event: "run", data: { a: 1 }, id: 1 },
      { event: "done", data: {}, id: 2 },
    ]);
  });

  it("a subscriber joining late gets the whole stream so far, then live events", () => {
    const { run } = newRun();
    run.emit("run", {});
    run.emit("answer", { status: "delta", content: "x" }, { store: false });
    const seen: SseEvent[] = [];
    run.subscribe(
      (event) => seen.push(event),
      () => {},
    );
    run.emit("done", {});
    expect(seen.map((e) => e.event)).toEqual(["run", "answer", "done"]);
  });

  it("numbers deltas after the last stored event and resumes exactly after any id", () => {
    const { run } = newRun();
    run.emit("run", {});
    run.emit("answer", { status: "start" });
    run.emit("answer", { status: "delta", content: "a" }, { store: false });
    run.emit("answer", { status: "delta", content: "b" }, { store: false });
    run.emit("step", { type: "notice" }, { withSeq: true });
    const ids = (after: string) => {
      const seen: SseEvent[] = [];
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

  it("puts the sequence number into step data", () => {
    const { run, persisted } = newRun();
    run.emit("run", {});
    run.emit("step", { type: "notice", text: "t" }, { withSeq: true });
    expect(persisted[1]).toEqual({ event: "step", data: { seq: 2, type: "notice", text: "t" }, id: 2 });
  });

  it("closes subscribers at the end and ignores events after it", () => {
    const { run, persisted } = newRun();
    let closed = 0;
    run.subscribe(
      () => {},
      () => closed++,
    );
    run.end();
    run.emit("late", {});
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
    runs.add(run);
    runs.remove(run);
    expect(runs.forConversation("conv-1")).toBeUndefined();
    expect(runs.get("run-1")).toBe(run);
    await new Promise((resolve) => setTimeout(resolve, 40));
    expect(runs.get("run-1")).toBeUndefined();
  });

  it("finds a run by conversation and by id until it is removed", () => {
    const runs = new LiveRuns(0);
    const { run } = newRun();
    runs.add(run);
    expect(runs.forConversation("conv-1")).toBe(run);
    expect(runs.get("run-1")).toBe(run);
    runs.remove(run);
    expect(runs.forConversation("conv-1")).toBeUndefined();
    expect(runs.size).toBe(0);
  });
});
