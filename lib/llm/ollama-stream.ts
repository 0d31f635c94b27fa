import { AppError } from "@/lib/errors";
import { midStreamError, ollamaHttpError } from "./ollama-errors";

/**
 * Reading Ollama's reply bodies safely: NDJSON split into lines in linear time, with Ollama's
 * mid-stream `{"error"}` line surfaced, and no line — nor a non-streamed body —
 * longer than OLLAMA_MAX_LINE_MB, so a broken server can neither pin a core nor fill memory.
 */

/** From the last line of a streamed reply: how long the model took to write its output tokens. */
export interface GenerationStats {
  evalCount: number;
  evalDurationNs: number;
}

/** `eval_count` and `eval_duration` of Ollama's final (`"done":true`) line, when it has both. */
export function generationStats(line: string): GenerationStats | undefined {
  if (!line.includes('"done":true')) return undefined;
  try {
    const parsed = JSON.parse(line) as { done?: unknown; eval_count?: unknown; eval_duration?: unknown };
    const { eval_count: evalCount, eval_duration: evalDurationNs } = parsed;
    if (parsed.done !== true || typeof evalCount !== "number" || typeof evalDurationNs !== "number") return undefined;
    return { evalCount, evalDurationNs };
  } catch {
    return undefined;
  }
}

export interface LineLimits {
  /** Longest line taken; a longer one cuts the reply off with an error (OLLAMA_MAX_LINE_MB). */
  maxLineBytes?: number;
  /** Told how many bytes each search for a line end looks at (tests check each byte is looked at once). */
  onScan?: (bytes: number) => void;
  /** Told the generation stats of the reply's final line. */
  onDone?: (stats: GenerationStats) => void;
}

const NEWLINE = 0x0a;
/**
 * Lines passed on per turn of the event loop. A reply that arrives in a burst (read all at once,
 * or piled up while the server was busy) is handed on in slices: its first deltas reach the client
 * while the rest is still to be parsed, and the other runs' streams get their turn in between.
 */
export const LINES_PER_TURN = 16;
const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));
const NEWLINE_BYTES = new Uint8Array([NEWLINE]);

function concatBytes(parts: Uint8Array[]): Uint8Array {
  if (parts.length === 1 && parts[0]) return parts[0];
  const joined = new Uint8Array(parts.reduce((sum, part) => sum + part.byteLength, 0));
  let offset = 0;
  for (const part of parts) {
    joined.set(part, offset);
    offset += part.byteLength;
  }
  return joined;
}

const megabytes = (bytes: number) => `${Math.round((bytes / 1024 / 1024) * 100) / 100} MB`;

export function lineTooLongError(maxLineBytes: number): AppError {
  return new AppError(
    "upstream:ollama_line_too_long",
    `Ollama sent a reply line longer than ${megabytes(maxLineBytes)} (OLLAMA_MAX_LINE_MB), so the reply was cut off. Is OLLAMA_BASE_URL an Ollama server?`,
  );
}

/**
 * Passes NDJSON through line by line; Ollama's `{"error"}` line (and anything after it) is taken
 * out and reported to `onError`. Reporting on the side, rather than erroring the stream, keeps the
 * deltas before the error: an errored stream discards what its consumers have not read yet.
 * Lines are split on bytes (a UTF-8 character never contains a newline byte) and each received
 * byte is searched once, however long its line. A line over `maxLineBytes` is reported the same
 * way and ends the reply, which cancels the request.
 */
export function surfaceMidStreamErrors(
  body: ReadableStream<Uint8Array>,
  onError: (error: AppError) => void,
  { maxLineBytes = Number.POSITIVE_INFINITY, onScan, onDone }: LineLimits = {},
): ReadableStream<Uint8Array> {
  const decoder = new TextDecoder();
  // The line being received: the pieces of it seen so far, never searched again.
  let partial: Uint8Array[] = [];
  let partialBytes = 0;
  let failed = false;

  /** Adds a complete line to `out`, unless it is Ollama's error line. */
  const takeLine = (line: Uint8Array, out: Uint8Array[]): AppError | undefined => {
    const text = decoder.decode(line);
    if (!text.trim()) return undefined;
    const error = midStreamError(text);
    if (error !== undefined) return ollamaHttpError(500, JSON.stringify({ error }));
    const stats = onDone ? generationStats(text) : undefined;
    if (stats) onDone?.(stats);
    out.push(line, NEWLINE_BYTES);
    return undefined;
  };

  /** Adds the chunk's complete lines to `out` and keeps the rest for the next chunk. */
  const takeChunk = (chunk: Uint8Array, out: Uint8Array[]): AppError | undefined => {
    let start = 0;
    for (;;) {
      const end = chunk.indexOf(NEWLINE, start);
      onScan?.((end === -1 ? chunk.byteLength : end + 1) - start);
      if (end === -1) break;
      if (partialBytes + end - start > maxLineBytes) return lineTooLongError(maxLineBytes);
      const line = concatBytes([...partial, chunk.subarray(start, end)]);
      partial = [];
      partialBytes = 0;
      start = end + 1;
      const error = takeLine(line, out);
      if (error) return error;
    }
    if (start < chunk.byteLength) {
      partial.push(chunk.subarray(start));
      partialBytes += chunk.byteLength - start;
    }
    return partialBytes > maxLineBytes ? lineTooLongError(maxLineBytes) : undefined;
  };

  const send = (out: Uint8Array[], controller: TransformStreamDefaultController<Uint8Array>) => {
    if (out.length > 0) controller.enqueue(concatBytes(out));
  };

  return body.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      async transform(chunk, controller) {
        if (failed) return;
        const out: Uint8Array[] = [];
        const error = takeChunk(chunk, out);
        // `out` holds each line followed by its newline.
        for (let start = 0; start < out.length; start += 2 * LINES_PER_TURN) {
          if (start > 0) await nextTurn();
          try {
            send(out.slice(start, start + 2 * LINES_PER_TURN), controller);
          } catch {
            return; // the reader went away meanwhile
          }
        }
        if (!error) return;
        failed = true;
        partial = [];
        onError(error);
        controller.terminate(); // cancels the body, so the connection to Ollama is closed
      },
      flush(controller) {
        if (failed || partialBytes === 0) return;
        const out: Uint8Array[] = [];
        const error = takeLine(concatBytes(partial), out);
        send(out, controller);
        if (error) onError(error);
      },
    }),
  );
}

/** A body that is one JSON document (a reply with `stream: false`) is capped like one line. */
export function limitBodyBytes(body: ReadableStream<Uint8Array>, maxBytes: number): ReadableStream<Uint8Array> {
  let received = 0;
  return body.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        received += chunk.byteLength;
        if (received > maxBytes) controller.error(lineTooLongError(maxBytes));
        else controller.enqueue(chunk);
      },
    }),
  );
}
