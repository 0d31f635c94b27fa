/**
 * A small Server-Sent Events parser for streams read with `fetch` (POST /api/chat cannot use
 * EventSource). Follows the WHATWG event-stream rules that matter here: LF, CR and CRLF line ends,
 * `:` comment lines, multi-line `data`, `event` and `id` fields, frames split anywhere across chunks.
 */

export interface SseMessage {
  event: string;
  data: string;
  id: string | null;
}

const LINE_END = /\r\n|\r|\n/g;

export class SseParser {
  private buffer = "";
  private event = "";
  private data: string[] = [];
  private id: string | null = null;
  private hasData = false;

  /** Feeds decoded text; returns the messages completed by it. */
  push(text: string): SseMessage[] {
    this.buffer += text;
    const messages: SseMessage[] = [];
    let start = 0;
    LINE_END.lastIndex = 0;
    for (let match = LINE_END.exec(this.buffer); match; match = LINE_END.exec(this.buffer)) {
      // A lone CR at the end may be the first half of a CRLF split across chunks.
      if (match[0] === "\r" && match.index === this.buffer.length - 1) break;
      const message = this.line(this.buffer.slice(start, match.index));
      if (message) messages.push(message);
      start = match.index + match[0].length;
    }
    this.buffer = this.buffer.slice(start);
    return messages;
  }

  /**
   * Ends the stream. A CR held back by `push` is a line end after all; a frame without its
   * closing blank line is dropped, as the spec says.
   */
  end(): SseMessage[] {
    const held = this.buffer.endsWith("\r") ? this.buffer.slice(0, -1) : null;
    this.buffer = "";
    const message = held === null ? null : this.line(held);
    this.reset();
    return message ? [message] : [];
  }

  private line(line: string): SseMessage | null {
    if (line === "") return this.dispatch();
    if (line.startsWith(":")) return null;
    const colon = line.indexOf(":");
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? "" : line.slice(colon + 1);
    if (value.startsWith(" ")) value = value.slice(1);
    if (field === "event") this.event = value;
    else if (field === "data") {
      this.data.push(value);
      this.hasData = true;
    } else if (field === "id" && !value.includes("\0")) this.id = value;
    return null;
  }

  private dispatch(): SseMessage | null {
    const message = this.hasData ? { event: this.event || "message", data: this.data.join("\n"), id: this.id } : null;
    this.reset();
    return message;
  }

  private reset() {
    this.event = "";
    this.data = [];
    this.hasData = false;
  }
}

/** Reads an SSE body to the end, yielding each message; stops early when `signal` aborts. */
export async function* readSse(body: ReadableStream<Uint8Array>, signal?: AbortSignal): AsyncGenerator<SseMessage> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  const parser = new SseParser();
  try {
    while (!signal?.aborted) {
      const { done, value } = await reader.read();
      if (done) break;
      yield* parser.push(decoder.decode(value, { stream: true }));
    }
    yield* parser.push(decoder.decode());
    yield* parser.end();
  } finally {
    await reader.cancel().catch(() => undefined);
    reader.releaseLock();
  }
}
