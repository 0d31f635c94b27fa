/**
 * Reads Server-Sent Events from a `fetch` body (POST /api/chat cannot use EventSource), parsed by
 * `eventsource-parser`, and decodes a run's events at the one boundary where the wire is trusted.
 */
import { createParser } from "eventsource-parser";
import { decodeRunEvent, type RunEvent } from "@/lib/protocol/run-events";

export interface SseMessage {
  /** "message" when the frame names no event, as EventSource says. */
  event: string;
  data: string;
  id: string | null;
}

/** Reads an SSE body to the end, yielding each message; stops early when `signal` aborts. */
export async function* readSse(body: ReadableStream<Uint8Array>, signal?: AbortSignal): AsyncGenerator<SseMessage> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let parsed: SseMessage[] = [];
  const parser = createParser({
    onEvent: ({ event, data, id }) => parsed.push({ event: event ?? "message", data, id: id ?? null }),
  });
  // The parser holds back a CR at the end of a chunk (it may be half of a CRLF); at the end of
  // the stream it is a line end after all, which the parser is not told by itself.
  let endsWithCr = false;
  const feed = (text: string) => {
    if (text === "") return [];
    endsWithCr = text.endsWith("\r");
    parser.feed(text);
    const out = parsed;
    parsed = [];
    return out;
  };
  try {
    while (!signal?.aborted) {
      const { done, value } = await reader.read();
      if (done) break;
      yield* feed(decoder.decode(value, { stream: true }));
    }
    yield* feed(decoder.decode());
    if (endsWithCr) yield* feed("\n");
  } finally {
    await reader.cancel().catch(() => undefined);
    reader.releaseLock();
  }
}

/** A run's events from an SSE body; a frame that is not one of the protocol's is skipped, and the console says why. */
export async function* readRunEvents(body: ReadableStream<Uint8Array>, signal?: AbortSignal): AsyncGenerator<RunEvent> {
  for await (const message of readSse(body, signal)) {
    const decoded = decodeRunEvent(message);
    if (decoded.ok) yield decoded.event;
    else console.warn(`[chat] ignored a frame of the run's stream: ${decoded.problem}`);
  }
}
