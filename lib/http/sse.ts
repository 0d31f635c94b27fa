/** SSE framing, headers and keepalive. */

export const SSE_HEADERS = {
  "Content-Type": "text/event-stream; charset=utf-8",
  "Cache-Control": "no-cache, no-transform",
  Connection: "keep-alive",
  "X-Accel-Buffering": "no",
} as const;

export const KEEPALIVE_MS = 15_000;

export interface SseEvent {
  event: string;
  data: unknown;
  /** Where a client can resume after this event (see LiveRun). */
  id?: string | number;
}

export function formatSse({ event, data, id }: SseEvent): string {
  return `${id === undefined ? "" : `id: ${id}\n`}event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
}

/**
 * A text/event-stream response fed by `subscribe`, which gets a `send` and a `close` and returns its
 * unsubscribe. The client going away unsubscribes but does not stop whatever produces the events.
 *
 * Events sent in one turn of the event loop go out as one chunk, written once that turn's work is
 * done (`process.nextTick` runs after the pending promise callbacks): a model reply read in a burst
 * costs one write instead of one per delta, and a lone event still leaves at once, never waiting for
 * a timer or the next event.
 */
export function sseResponse(
  subscribe: (send: (event: SseEvent) => void, close: () => void) => () => void,
  { keepaliveMs = KEEPALIVE_MS }: { keepaliveMs?: number } = {},
): Response {
  const encoder = new TextEncoder();
  let cleanup = () => {};
  const stream = new ReadableStream<Uint8Array>({
    start(controller) {
      let closed = false;
      let pending = "";
      const flush = () => {
        if (closed || pending === "") return;
        const text = pending;
        pending = "";
        try {
          controller.enqueue(encoder.encode(text));
        } catch {
          finish();
        }
      };
      const write = (text: string) => {
        if (closed) return;
        if (pending === "") process.nextTick(flush);
        pending += text;
      };
      const keepalive = setInterval(() => write(": keepalive\n\n"), keepaliveMs);
      let unsubscribe = () => {};
      const finish = () => {
        flush();
        if (closed) return;
        closed = true;
        clearInterval(keepalive);
        unsubscribe();
        try {
          controller.close();
        } catch {
          // already closed by the client
        }
      };
      cleanup = () => {
        closed = true;
        clearInterval(keepalive);
        unsubscribe();
      };
      write(": connected\n\n");
      unsubscribe = subscribe((event) => write(formatSse(event)), finish);
      if (closed) unsubscribe();
    },
    cancel() {
      cleanup();
    },
  });
  return new Response(stream, { headers: SSE_HEADERS });
}
