import { AppError } from "@/lib/errors";
import { concatBytes, type NdjsonOptions, ndjsonLines as readLines } from "@/lib/util/ndjson";

/**
 * Reading Ollama's reply bodies safely: NDJSON split into lines by the shared reader
 * (lib/util/ndjson.ts), and no line — nor a non-streamed body — longer than OLLAMA_MAX_LINE_MB, so
 * a broken server can neither pin a core nor fill memory.
 */

export type LineLimits = Pick<NdjsonOptions, "maxLineBytes" | "onScan">;

const megabytes = (bytes: number) => `${Math.round((bytes / 1024 / 1024) * 100) / 100} MB`;

export function lineTooLongError(maxLineBytes: number): AppError {
  return new AppError(
    "upstream:ollama_line_too_long",
    `Ollama sent a reply line longer than ${megabytes(maxLineBytes)} (OLLAMA_MAX_LINE_MB), so the reply was cut off. Is OLLAMA_BASE_URL an Ollama server?`,
    { details: { maxBytes: maxLineBytes } },
  );
}

/** The non-empty lines of an Ollama reply (the shared reader); a line over `maxLineBytes` is `upstream:ollama_line_too_long`. */
export function ndjsonLines(body: AsyncIterable<Uint8Array>, limits: LineLimits = {}): AsyncGenerator<string> {
  return readLines(body, { ...limits, tooLong: lineTooLongError });
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
