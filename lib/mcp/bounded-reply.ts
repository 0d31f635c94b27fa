import "server-only";

/**
 * The size cap on what an MCP server sends over HTTP (docs/security.md, "MCP servers"): a fetch
 * whose response body is counted as it streams in, so a reply over the cap is refused before it
 * is held. A JSON response counts whole; a `text/event-stream` counts per event (up to a blank
 * line), since one stream carries many messages. stdio is capped by the SDK's own `maxBufferSize`.
 */

/** A reply over the cap; the connection it came on is closed. */
export class McpReplyTooLarge extends Error {
  constructor(readonly maxBytes: number) {
    super(`The server sent a message over ${Math.round((maxBytes / 1024 / 1024) * 10) / 10} MB (MCP_MAX_MESSAGE_MB).`);
    this.name = "McpReplyTooLarge";
  }
}

const NO_BODY = new Set([101, 204, 205, 304]);
const NEWLINE = 10;
const RETURN = 13;

/** Whether bytes of a line (without its newline) hold more than a carriage return. */
const hasContent = (bytes: Uint8Array) => bytes.length > 1 || (bytes.length === 1 && bytes[0] !== RETURN);

/** Counts the bytes of each message in a body; throws once one passes `maxBytes`. */
export function messageCounter(maxBytes: number): (chunk: Uint8Array) => void {
  let messageBytes = 0;
  let lineHasContent = false;
  return (chunk) => {
    let from = 0;
    while (from < chunk.length) {
      const newline = chunk.indexOf(NEWLINE, from);
      const end = newline === -1 ? chunk.length : newline + 1;
      messageBytes += end - from;
      if (messageBytes > maxBytes) throw new McpReplyTooLarge(maxBytes);
      const line = chunk.subarray(from, newline === -1 ? chunk.length : newline);
      if (newline === -1) {
        lineHasContent ||= hasContent(line);
      } else {
        // An empty line ends a server-sent event: the next one counts afresh.
        if (!lineHasContent && !hasContent(line)) messageBytes = 0;
        lineHasContent = false;
      }
      from = end;
    }
  };
}

/**
 * A fetch for the SDK's HTTP transports whose response bodies are capped at `maxBytes` a message.
 * `onTooLarge` hears of a refusal even where the SDK would only log it (an event stream it reads
 * in the background).
 */
export function boundedFetch(maxBytes: number, onTooLarge: (error: McpReplyTooLarge) => void): typeof fetch {
  return async (input, init) => {
    const response = await fetch(input, init);
    // A status that carries no body cannot be given one again.
    if (!response.body || NO_BODY.has(response.status)) return response;
    const count = messageCounter(maxBytes);
    const counted = response.body.pipeThrough(
      new TransformStream<Uint8Array, Uint8Array>({
        transform(chunk, controller) {
          try {
            count(chunk);
          } catch (error) {
            if (error instanceof McpReplyTooLarge) onTooLarge(error);
            throw error;
          }
          controller.enqueue(chunk);
        },
      }),
    );
    return new Response(counted, {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers,
    });
  };
}
