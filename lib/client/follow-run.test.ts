import { describe, expect, it } from "vitest";
import type { RunEvent } from "@/lib/protocol/run-events";
import { ApiError } from "./api/request";
import { followRun } from "./follow-run";

const encoder = new TextEncoder();

/** A body that sends these frames, then either ends or breaks (a dropped connection). */
function body(frames: string[], { breaks = false } = {}): ReadableStream<Uint8Array> {
  const queue = [...frames];
  // Pulled one frame at a time: erroring a stream throws away what it still holds unread.
  return new ReadableStream({
    pull(controller) {
      const next = queue.shift();
      if (next !== undefined) controller.enqueue(encoder.encode(next));
      else if (breaks) controller.error(new TypeError("network error"));
      else controller.close();
    },
  });
}

const frame = (event: string, data: unknown, id?: string) =>
  `${id ? `id: ${id}\n` : ""}event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;

const RUN = frame("run", { runId: "r1", conversationId: "c1", userMessageId: "u1", model: "m", mode: "native" }, "1");
const START = frame("answer", { status: "start" }, "2");
const delta = (text: string, id: string) => frame("answer", { status: "delta", content: text }, id);
const usage = { inputTokens: 1, outputTokens: 1, totalTokens: 2 };
const DONE = frame("done", { messageId: "m1", iterations: 1, usage, elapsedMs: 5 }, "3");

function recorder() {
  const seen: RunEvent[] = [];
  const opened: string[] = [];
  return {
    seen,
    opened,
    text: () =>
      seen.flatMap((m) => (m.event === "answer" && m.data.status === "delta" ? [m.data.content] : [])).join("|"),
  };
}

describe("followRun", () => {
  it("reconnects after a dropped stream with ?after=<last id seen> and ends at done", async () => {
    const record = recorder();
    const outcome = await followRun({
      initial: body([RUN, START, delta("Hel", "2.1")], { breaks: true }),
      signal: new AbortController().signal,
      retryDelaysMs: [0, 0],
      onEvent: (event) => record.seen.push(event),
      openEvents: async (runId, after) => {
        record.opened.push(`${runId}@${after}`);
        return body([delta("lo", "2.2"), DONE]);
      },
    });
    expect(outcome).toBe("done");
    expect(record.opened).toEqual(["r1@2.1"]);
    expect(record.seen.map((m) => m.id)).toEqual(["1", "2", "2.1", "2.2", "3"]);
  });

  it("reads a run it did not start from its first event", async () => {
    const record = recorder();
    const outcome = await followRun({
      runId: "r9",
      after: "0",
      signal: new AbortController().signal,
      onEvent: (event) => record.seen.push(event),
      openEvents: async (runId, after) => {
        record.opened.push(`${runId}@${after}`);
        return body([RUN, DONE]);
      },
    });
    expect(outcome).toBe("done");
    expect(record.opened).toEqual(["r9@0"]);
  });

  it("gives up as lost after the last retry, and at once when the run is gone (404)", async () => {
    let attempts = 0;
    const failing = await followRun({
      initial: body([RUN], { breaks: true }),
      signal: new AbortController().signal,
      retryDelaysMs: [0, 0, 0],
      onEvent: () => {},
      openEvents: async () => {
        attempts++;
        throw new ApiError(0, "client:network", "down");
      },
    });
    expect(failing).toBe("lost");
    expect(attempts).toBe(3);

    attempts = 0;
    const gone = await followRun({
      initial: body([RUN]),
      signal: new AbortController().signal,
      retryDelaysMs: [0, 0, 0],
      onEvent: () => {},
      openEvents: async () => {
        attempts++;
        throw new ApiError(404, "not_found:run", "no such run");
      },
    });
    expect(gone).toBe("lost");
    expect(attempts).toBe(1);
  });

  it("cannot resume a stream that broke before the run had an id", async () => {
    const outcome = await followRun({
      initial: body([], { breaks: true }),
      signal: new AbortController().signal,
      retryDelaysMs: [0],
      onEvent: () => {},
      openEvents: async () => {
        throw new Error("must not be called");
      },
    });
    expect(outcome).toBe("lost");
  });

  it("stops reconnecting once aborted", async () => {
    const controller = new AbortController();
    const outcome = await followRun({
      initial: body([RUN], { breaks: true }),
      signal: controller.signal,
      retryDelaysMs: [10_000],
      onEvent: () => {},
      onReconnecting: () => controller.abort(),
      openEvents: async () => body([DONE]),
    });
    expect(outcome).toBe("aborted");
  });

  it("returns at done, and a title made after done still reaches onEvent from the same stream", async () => {
    const record = recorder();
    let release: () => void = () => {};
    const titleSent = new Promise<void>((resolve) => {
      release = resolve;
    });
    const frames = [
      RUN,
      START,
      frame("done", { messageId: "m1", iterations: 1, usage, elapsedMs: 5, titlePending: true }, "3"),
    ];
    const stream = new ReadableStream<Uint8Array>({
      async pull(controller) {
        const next = frames.shift();
        if (next !== undefined) return controller.enqueue(encoder.encode(next));
        await titleSent;
        controller.enqueue(encoder.encode(frame("title", { title: "Greeting" }, "3.1")));
        controller.close();
      },
    });
    const outcome = await followRun({
      initial: stream,
      signal: new AbortController().signal,
      onEvent: (event) => record.seen.push(event),
      openEvents: async () => {
        throw new Error("no reconnect expected");
      },
    });
    expect(outcome).toBe("done");
    expect(record.seen.map((event) => event.event)).toEqual(["run", "answer", "done"]);
    release();
    await expect.poll(() => record.seen.map((event) => event.event)).toEqual(["run", "answer", "done", "title"]);
  });
});
