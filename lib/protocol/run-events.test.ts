/**
 * The run protocol is one contract for the server and the browser. The type assertions here are
 * checked by `tsc --noEmit` (part of `npm run lint`): if either side stops using the protocol's
 * types, or accepts an event the protocol does not define, this file no longer compiles.
 */
import { describe, expect, expectTypeOf, it } from "vitest";
import type { AgentOptions, InterruptSource } from "@/lib/agent/types";
import { LiveRun } from "@/lib/chat/live-run";
import type { FollowOptions } from "@/lib/client/follow-run";
import { applyRunEvent, emptyRunView, type timelineFromSteps } from "@/lib/client/run-view";
import type { RunSummary } from "@/lib/db/runs";
import {
  type AgentStep,
  decodeRunEvent,
  type Interrupt,
  isRunEventName,
  type RunDone,
  type RunEvent,
  type RunEventData,
  type RunEventName,
  type SentRunEvent,
  type StoredStep,
} from "./run-events";

const done: RunDone = {
  messageId: "m1",
  iterations: 1,
  usage: { inputTokens: 1, outputTokens: 2, totalTokens: 3 },
  elapsedMs: 4,
};

describe("the run protocol", () => {
  it("is what the server emits and stores and what the browser reads and folds, on both sides the same types", () => {
    // Server: emit is keyed by the protocol's map; subscribers and replays get its events.
    expectTypeOf<Parameters<LiveRun["emit"]>[0]>().toEqualTypeOf<RunEventName>();
    expectTypeOf<Parameters<LiveRun["emit"]>[1]>().toEqualTypeOf<RunEventData<RunEventName>>();
    expectTypeOf<Parameters<Parameters<LiveRun["subscribe"]>[0]>[0]>().toEqualTypeOf<SentRunEvent>();
    // The engine's steps and interrupts are the protocol's.
    expectTypeOf<Parameters<NonNullable<AgentOptions["onStep"]>>[0]>().toEqualTypeOf<AgentStep>();
    expectTypeOf<ReturnType<InterruptSource["drain"]>>().toEqualTypeOf<Interrupt[]>();
    // Browser: what it reads from the wire and folds is the protocol's union, not a copy of it.
    expectTypeOf<Parameters<FollowOptions["onEvent"]>[0]>().toEqualTypeOf<RunEvent>();
    expectTypeOf<Parameters<typeof applyRunEvent>[1]>().toEqualTypeOf<RunEvent>();
    // A stored run's steps, as the API returns them, are what the browser's timeline takes.
    expectTypeOf<RunSummary["steps"]>().toEqualTypeOf<StoredStep[]>();
    expectTypeOf<Parameters<typeof timelineFromSteps>[0]>().toEqualTypeOf<StoredStep[]>();
  });

  it("refuses, on both sides, an event whose data does not match its name", () => {
    const live = new LiveRun({
      runId: "r1",
      conversationId: "c1",
      persist: async () => {},
      interruptLimits: { maxCount: 1, maxBytes: 1 },
    });
    // @ts-expect-error pending interrupts carry ids, not bare texts
    live.emit("done", { ...done, pendingInterrupts: ["text"] });
    // @ts-expect-error a step's data is not a `done`'s
    live.emit("step", done);
    // @ts-expect-error not an event of the protocol
    live.emit("surprise", {});
    // @ts-expect-error the browser folds only the protocol's shapes
    applyRunEvent(emptyRunView(), { event: "done", data: { ...done, elapsed: 4 } });
    const textsOnly = { type: "interrupt", seq: 1, at: 0, iteration: 1, messages: ["x"] } as const;
    // @ts-expect-error an interrupt step names its interrupts with ids
    applyRunEvent(emptyRunView(), { event: "step", data: textsOnly });
    expect(applyRunEvent(emptyRunView(), { event: "done", data: done }).status).toBe("complete");
  });

  it("knows its event names and nothing else", () => {
    for (const name of ["run", "step", "plan", "step_progress", "compact", "answer", "error", "done"]) {
      expect(isRunEventName(name)).toBe(true);
    }
    for (const name of ["message", "constructor", "toString", "__proto__", ""])
      expect(isRunEventName(name)).toBe(false);
  });

  it("decodes a frame of the wire into an event, and ignores unknown names and data that is not a JSON object", () => {
    expect(decodeRunEvent({ event: "done", data: JSON.stringify(done), id: "9" })).toEqual({
      event: "done",
      data: done,
      id: "9",
    });
    expect(decodeRunEvent({ event: "answer", data: '{"status":"start"}' })).toEqual({
      event: "answer",
      data: { status: "start" },
    });
    expect(decodeRunEvent({ event: "surprise", data: "{}" })).toBeNull();
    expect(decodeRunEvent({ data: "{}" })).toBeNull();
    expect(decodeRunEvent({ event: "done", data: "{not json" })).toBeNull();
    expect(decodeRunEvent({ event: "done", data: "42" })).toBeNull();
  });
});
