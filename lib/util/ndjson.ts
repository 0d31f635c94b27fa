/**
 * The one NDJSON reader: the non-empty lines of a byte stream, split in linear time, with no line
 * longer than a limit, so a broken peer can neither pin a core nor fill memory. Ollama's streamed
 * chat replies and its pull progress both come through it.
 */

export interface NdjsonOptions {
  /** Longest line taken; a longer one (even unfinished) ends the reading with `tooLong`'s error. */
  maxLineBytes?: number;
  /** The error a too long line is, given the limit. */
  tooLong?: (maxLineBytes: number) => Error;
  /** Told how many bytes each search for a line end looks at (tests check each byte is looked at once). */
  onScan?: (bytes: number) => void;
}

const NEWLINE = 0x0a;
/**
 * Lines handed on per turn of the event loop. A body that arrives in a burst (read all at once,
 * or piled up while the peer was busy) is handed on in slices: its first lines reach the reader
 * while the rest is still to be split, and other streams get their turn in between.
 */
export const LINES_PER_TURN = 16;
const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

export function concatBytes(parts: Uint8Array[]): Uint8Array {
  if (parts.length === 1 && parts[0]) return parts[0];
  const joined = new Uint8Array(parts.reduce((sum, part) => sum + part.byteLength, 0));
  let offset = 0;
  for (const part of parts) {
    joined.set(part, offset);
    offset += part.byteLength;
  }
  return joined;
}

const lineTooLong = (maxLineBytes: number) => new RangeError(`An NDJSON line is longer than ${maxLineBytes} bytes.`);

/**
 * The non-empty lines of an NDJSON body, as text; the last may lack its newline. Lines are split
 * on bytes (a UTF-8 character never contains a newline byte) and each received byte is searched
 * once, however long its line. A line over `maxLineBytes` throws; the caller's `for await` then
 * closes the body.
 */
export async function* ndjsonLines(
  body: AsyncIterable<Uint8Array>,
  { maxLineBytes = Number.POSITIVE_INFINITY, tooLong = lineTooLong, onScan }: NdjsonOptions = {},
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
      if (partialBytes + end - start > maxLineBytes) throw tooLong(maxLineBytes);
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
      if (partialBytes > maxLineBytes) throw tooLong(maxLineBytes);
    }
  }
  const last = partialBytes > 0 ? decoder.decode(concatBytes(partial)) : "";
  if (last.trim()) yield last;
}

/** A web stream's chunks as an async iterable (TypeScript's DOM types lack its own); stopping early cancels the stream. */
export async function* streamChunks(stream: ReadableStream<Uint8Array>): AsyncGenerator<Uint8Array> {
  const reader = stream.getReader();
  try {
    for (let read = await reader.read(); !read.done; read = await reader.read()) yield read.value;
  } finally {
    await reader.cancel().catch(() => undefined);
  }
}
