import { AppError } from "@/lib/errors";

/**
 * Reading Ollama's reply bodies safely: NDJSON split into lines in linear time, and no line — nor
 * a non-streamed body — longer than OLLAMA_MAX_LINE_MB, so a broken server can neither pin a core
 * nor fill memory.
 */

export interface LineLimits {
  /** Longest line taken; a longer one ends the reply with an error (OLLAMA_MAX_LINE_MB). */
  maxLineBytes?: number;
  /** Told how many bytes each search for a line end looks at (tests check each byte is looked at once). */
  onScan?: (bytes: number) => void;
}

const NEWLINE = 0x0a;
/**
 * Lines handed on per turn of the event loop. A reply that arrives in a burst (read all at once,
 * or piled up while the server was busy) is handed on in slices: its first deltas reach the client
 * while the rest is still to be parsed, and the other runs' streams get their turn in between.
 */
export const LINES_PER_TURN = 16;
const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

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
    { details: { maxBytes: maxLineBytes } },
  );
}

/**
 * The non-empty lines of an NDJSON body, as text. Lines are split on bytes (a UTF-8 character
 * never contains a newline byte) and each received byte is searched once, however long its line.
 * A line over `maxLineBytes` throws; the caller's `for await` then closes the body.
 */
export async function* ndjsonLines(
  body: AsyncIterable<Uint8Array>,
  { maxLineBytes = Number.POSITIVE_INFINITY, onScan }: LineLimits = {},
): AsyncGenerator<string> {
  const decoder = new TextDecoder();
  // The line being received: the pieces of it seen so far, never searched again.
  let partial: Uint8Array[] = [];
  let partialBytes = 0;
  for await (const chunk of body) {
    let start = 0;
    let handedOn = 0;
    for (;;) {
      const end = chunk.indexOf(NEWLINE, start);
      onScan?.((end === -1 ? chunk.byteLength : end + 1) - start);
      if (end === -1) break;
      if (partialBytes + end - start > maxLineBytes) throw lineTooLongError(maxLineBytes);
      const line = decoder.decode(concatBytes([...partial, chunk.subarray(start, end)]));
      partial = [];
      partialBytes = 0;
      start = end + 1;
      if (!line.trim()) continue;
      if (handedOn > 0 && handedOn % LINES_PER_TURN === 0) await nextTurn();
      handedOn++;
      yield line;
    }
    if (start < chunk.byteLength) {
      partial.push(chunk.subarray(start));
      partialBytes += chunk.byteLength - start;
      if (partialBytes > maxLineBytes) throw lineTooLongError(maxLineBytes);
    }
  }
  const last = partialBytes > 0 ? decoder.decode(concatBytes(partial)) : "";
  if (last.trim()) yield last;
}

/** A body that is one JSON document (a reply with `stream: false`), capped like one line. */
export async function readCapped(
  body: AsyncIterable<Uint8Array>,
  maxBytes = Number.POSITIVE_INFINITY,
): Promise<string> {
  const parts: Uint8Array[] = [];
  let received = 0;
  for await (const chunk of body) {
    received += chunk.byteLength;
    if (received > maxBytes) throw lineTooLongError(maxBytes);
    parts.push(chunk);
  }
  return new TextDecoder().decode(concatBytes(parts));
}
