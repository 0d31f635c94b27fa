import { describe, expect, it } from "vitest";
import type { SseEvent } from "@/lib/http/sse";
import { LiveRun, LiveRuns } from "./live-run";

function newRun() {
  const persisted: SseEvent[] = [];
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

  it("replays only stored events after the given sequence number, plus the deltas", () => {
    const { run } = newRun();
    run.emit("run", {});
    run.emit("answer", { status: "start" });
    run.emit("answer", { status: "delta", content: "x" }, { store: false });
    const seen: SseEvent[] = [];
    run.subscribe(
      (event) => seen.push(event),
      () => {},
      1,
    );
    expect(seen.map((e) => e.id ?? "delta")).toEqual([2, "delta"]);
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
  it("finds a run by conversation and by id until it is removed", () => {
    const runs = new LiveRuns();
    const { run } = newRun();
    runs.add(run);
    expect(runs.forConversation("conv-1")).toBe(run);
    expect(runs.get("run-1")).toBe(run);
    runs.remove(run);
    expect(runs.forConversation("conv-1")).toBeUndefined();
    expect(runs.size).toBe(0);
  });
});
