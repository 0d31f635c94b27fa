/**
 * Follows one run's events to its `done`, whatever happens to the connection: when a stream ends
 * early it reconnects to `GET /api/runs/:id/events?after=<last id seen>`, and the server resumes
 * exactly after that event, answer deltas included.
 */
import type { RunEvent } from "@/lib/protocol/run-events";
import { ApiError, isAbort } from "./api/request";
import { readRunEvents } from "./sse";

export type FollowOutcome = "done" | "lost" | "aborted";

export interface FollowOptions {
  /** The stream already open (POST /api/chat's body); without it the run is read from its first event. */
  initial?: ReadableStream<Uint8Array>;
  runId?: string | null;
  /** Where to resume when there is no `initial` stream ("0" = from the start). */
  after?: string;
  signal: AbortSignal;
  onEvent: (event: RunEvent) => void;
  /** Called before each reconnect attempt (1, 2, …) and with 0 once events flow again. */
  onReconnecting?: (attempt: number) => void;
  openEvents: (runId: string, after: string, signal: AbortSignal) => Promise<ReadableStream<Uint8Array>>;
  /** Waits between reconnect attempts; after the last one the run counts as lost. */
  retryDelaysMs?: number[];
}

const DEFAULT_DELAYS_MS = [250, 500, 1000, 2000, 3000, 5000, 5000, 8000];

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      resolve();
    }
    signal.addEventListener("abort", done, { once: true });
  });
}

export async function followRun(options: FollowOptions): Promise<FollowOutcome> {
  const { signal, onEvent, onReconnecting, openEvents } = options;
  const delays = options.retryDelaysMs ?? DEFAULT_DELAYS_MS;
  let runId = options.runId ?? null;
  let lastId = options.after ?? "0";
  let attempt = 0;
  let body = options.initial ?? null;

  for (;;) {
    if (signal.aborted) return "aborted";
    if (!body) {
      if (!runId) return "lost";
      try {
        body = await openEvents(runId, lastId, signal);
      } catch (error) {
        if (isAbort(error) || signal.aborted) return "aborted";
        // The run is gone (deleted conversation): nothing to resume.
        if (error instanceof ApiError && error.status === 404) return "lost";
      }
    }
    if (body) {
      const events = readRunEvents(body, signal)[Symbol.asyncIterator]();
      try {
        for (let next = await events.next(); !next.done; next = await events.next()) {
          const event = next.value;
          if (attempt > 0) {
            attempt = 0;
            onReconnecting?.(0);
          }
          if (event.id) lastId = event.id;
          if (event.event === "run") runId = event.data.runId;
          onEvent(event);
          if (event.event === "done") {
            // The run is over for the caller now; a title still in the making arrives on the same stream.
            if (event.data.titlePending) void readTitle(events, onEvent);
            else void events.return?.(undefined);
            return "done";
          }
        }
      } catch (error) {
        if (isAbort(error) || signal.aborted) return "aborted";
        console.warn("[chat] the run's stream broke; reconnecting", error);
      }
      body = null;
    }
    if (signal.aborted) return "aborted";
    if (!runId || attempt >= delays.length) return "lost";
    attempt++;
    onReconnecting?.(attempt);
    await sleep(delays[attempt - 1] ?? 1000, signal);
  }
}

/** After `done`: the `title` event, if the stream brings it; a broken stream just means no title. */
async function readTitle(events: AsyncIterator<RunEvent>, onEvent: (event: RunEvent) => void): Promise<void> {
  try {
    for (let next = await events.next(); !next.done; next = await events.next()) {
      if (next.value.event === "title") onEvent(next.value);
    }
  } catch {
    // The title is also in the conversation list, the next time it is read.
  }
}
