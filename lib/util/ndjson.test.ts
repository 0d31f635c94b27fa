import { describe, expect, it } from "vitest";
import { byteChunks } from "@/tests/support/byte-chunks";
import { LINES_PER_TURN, ndjsonLines, streamChunks } from "./ndjson";

const encoder = new TextEncoder();

const chunks = byteChunks;

async function lines(body: AsyncIterable<Uint8Array>, maxLineBytes?: number): Promise<string[]> {
  const seen: string[] = [];
  for await (const line of ndjsonLines(body, { maxLineBytes })) seen.push(line);
  return seen;
}

describe("ndjsonLines", () => {
  it("puts a line split across chunks together again, at any cut", async () => {
    const text = '{"a":1}\n{"b":"日本"}\n';
    const bytes = encoder.encode(text);
    for (let cut = 1; cut < bytes.byteLength; cut++) {
      expect(await lines(chunks(bytes.subarray(0, cut), bytes.subarray(cut)))).toEqual(['{"a":1}', '{"b":"日本"}']);
    }
  });

  it("yields a trailing line that has no newline, and skips blank lines", async () => {
    expect(await lines(chunks('{"a":1}\n\n  \n{"b":2}'))).toEqual(['{"a":1}', '{"b":2}']);
    expect(await lines(chunks("\n \n"))).toEqual([]);
  });

  it("a bad line (over the limit) ends the reading with the caller's error, after the good lines before it", async () => {
    const seen: string[] = [];
    const tooLong = (max: number) => new Error(`over ${max}`);
    const reading = (async () => {
      for await (const line of ndjsonLines(chunks('{"a":1}\n', `${"x".repeat(9)}\n`, '{"b":2}\n'), {
        maxLineBytes: 8,
        tooLong,
      })) {
        seen.push(line);
      }
    })();
    await expect(reading).rejects.toThrow("over 8");
    expect(seen).toEqual(['{"a":1}']);
  });

  it("refuses an unfinished line as soon as it passes the limit, without waiting for its end", async () => {
    let sent = 0;
    async function* endless(): AsyncGenerator<Uint8Array> {
      for (let chunk = 0; chunk < 100; chunk++) {
        sent++;
        yield encoder.encode("xxxx");
      }
    }
    await expect(lines(endless(), 10)).rejects.toThrow(RangeError);
    expect(sent).toBe(3);
  });

  it("gives the event loop a turn every LINES_PER_TURN lines of a body read at once", async () => {
    const burst = Array.from({ length: 5 * LINES_PER_TURN + 3 }, (_, i) => `{"message":{"content":"t${i} "}}\n`);
    let taken = 0;
    let takenAtFirstTurn: number | undefined;
    for await (const _line of ndjsonLines(chunks(burst.join("")))) {
      if (taken === 0) setImmediate(() => (takenAtFirstTurn = taken));
      taken++;
    }
    expect(taken).toBe(burst.length);
    expect(takenAtFirstTurn).toBe(LINES_PER_TURN);
  });
});

describe("streamChunks", () => {
  it("reads a web stream's chunks, and cancels the stream when the reader stops early", async () => {
    let cancelled = false;
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(encoder.encode('{"a":1}\n'));
        controller.enqueue(encoder.encode('{"b":2}\n'));
      },
      cancel() {
        cancelled = true;
      },
    });
    for await (const line of ndjsonLines(streamChunks(stream))) {
      expect(line).toBe('{"a":1}');
      break;
    }
    expect(cancelled).toBe(true);
  });
});
