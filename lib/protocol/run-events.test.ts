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
import { readSse } from "@/lib/client/sse";
import type { RunSummary } from "@/lib/db/runs";
import { formatSse } from "@/lib/http/sse";
import { allSampleEvents, sampleAgentSteps, sampleEvents } from "@/tests/support/run-event-samples";
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
    for (const name of ["run", "step", "plan", "step_progress", "compact", "answer", "error", "citations", "done"]) {
      expect(isRunEventName(name)).toBe(true);
    }
    for (const name of ["message", "constructor", "toString", "__proto__", ""])
      expect(isRunEventName(name)).toBe(false);
  });

  it("decodes a frame of the wire into an event, and says why a frame of another name or data that is not a JSON object is none", () => {
    expect(decodeRunEvent({ event: "done", data: JSON.stringify(done), id: "9" })).toEqual({
      ok: true,
      event: { event: "done", data: done, id: "9" },
    });
    expect(decodeRunEvent({ event: "answer", data: '{"status":"start"}' })).toEqual({
      ok: true,
      event: { event: "answer", data: { status: "start" } },
    });
    const problem = (message: { event?: string; data: string }) => {
      const decoded = decodeRunEvent(message);
      return decoded.ok ? null : decoded.problem;
    };
    expect(problem({ event: "surprise", data: "{}" })).toBe('"surprise" is not an event of the run protocol');
    expect(problem({ data: "{}" })).toBe('"message" is not an event of the run protocol');
    expect(problem({ event: "done", data: "{not json" })).toBe('the "done" event\'s data is not JSON');
    expect(problem({ event: "done", data: "42" })).toMatch(/^the "done" event does not match the run protocol: /);
  });
});

describe("every event of the run protocol", () => {
  it.each(allSampleEvents())(
    "survives the wire: a %s event sent by the server is the same event in the browser",
    async (name, data) => {
      const frame = formatSse({ event: name, data, id: "7" });
      const decoded = [];
      for await (const message of readSse(new Response(frame).body as ReadableStream<Uint8Array>)) {
        decoded.push(decodeRunEvent(message));
      }
      expect(decoded).toEqual([{ ok: true, event: { event: name, data, id: "7" } }]);
    },
  );

  it("has a sample of every step kind in the round trip", () => {
    const kinds = new Set(sampleEvents.step.map((step) => step.type));
    expect([...kinds].sort()).toEqual(Object.keys(sampleAgentSteps).sort());
  });
});

describe("a run event the protocol does not define", () => {
  const refusal = (name: string, data: unknown) => {
    const decoded = decodeRunEvent({ event: name, data: JSON.stringify(data) });
    return decoded.ok ? "accepted" : decoded.problem;
  };
  const result = sampleAgentSteps.tool_result[0];

  it("is refused with what is wrong and where: a missing field, a wrong type, an unknown kind", () => {
    const { callId: _, ...noCallId } = { ...result, seq: 1, at: 0 };
    expect(refusal("step", noCallId)).toMatch(/^the "step" event does not match the run protocol: callId: /);
    expect(refusal("done", { ...done, iterations: "3" })).toMatch(/: iterations: /);
    expect(refusal("step", { ...result, seq: 1, at: 0, type: "telepathy" })).toMatch(/: type: /);
    expect(refusal("answer", { status: "delta" })).toMatch(/: content: /);
    expect(refusal("error", { code: "upstream:ollama", message: "m" })).toMatch(/: retryable: /);
    // A run fails with a code of the catalogue, which the browser has a message for.
    expect(refusal("error", { code: "conflict:something_new", message: "m", retryable: false })).toMatch(/: code: /);
    expect(refusal("error", { code: "client:network", message: "m", retryable: false })).toMatch(/: code: /);
  });

  it("is refused when its data drifted from what the browser folds: paging without where its footer begins, an unknown failure kind", () => {
    const paged = sampleAgentSteps.tool_result[1];
    const { bodyChars: _, ...footerUnknown } = paged?.paging ?? { bodyChars: 0 };
    expect(refusal("step", { ...paged, seq: 1, at: 0, paging: footerUnknown })).toMatch(/: paging\.bodyChars: /);
    expect(refusal("step", { ...result, seq: 1, at: 0, ok: false, errorKind: "gremlins" })).toMatch(/: errorKind: /);
  });

  it("is refused whole when it is no object at all, and a prototype key is no event name", () => {
    for (const data of [null, [], "text", 0]) expect(refusal("done", data)).toMatch(/does not match the run protocol/);
    expect(refusal("__proto__", {})).toBe('"__proto__" is not an event of the run protocol');
  });
});
