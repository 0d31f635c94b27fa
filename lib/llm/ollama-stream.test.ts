import { describe, expect, it } from "vitest";
import type { AppError } from "@/lib/errors";
import { byteChunks } from "@/tests/support/byte-chunks";
import { ndjsonLines, readCapped } from "./ollama-stream";

const encoder = new TextEncoder();

const chunks = byteChunks;

async function lines(body: AsyncIterable<Uint8Array>, maxLineBytes?: number): Promise<string[]> {
  const seen: string[] = [];
  for await (const line of ndjsonLines(body, { maxLineBytes })) seen.push(line);
  return seen;
}

describe("NDJSON lines", () => {
  it("yields each line whole, even when lines are split across chunks, and skips blank lines", async () => {
    expect(await lines(chunks('{"message":{"content":"a"},', '"done":false}\n\n{"done":true}'))).toEqual([
      '{"message":{"content":"a"},"done":false}',
      '{"done":true}',
    ]);
  });

  it("keeps a character whose bytes are split across chunks whole", async () => {
    const bytes = encoder.encode('{"message":{"content":"日本"}}\n');
    const cut = bytes.indexOf(0xe6) + 1; // inside the first character
    expect(await lines(chunks(bytes.subarray(0, cut), bytes.subarray(cut)))).toEqual([
      '{"message":{"content":"日本"}}',
    ]);
  });

  it("takes a line of exactly maxLineBytes and ends the reply at a line one byte longer", async () => {
    const line = '{"done":false}';
    expect(await lines(chunks(`${line}\n`), line.length)).toEqual([line]);

    const seen: string[] = [];
    const error = await (async () => {
      for await (const taken of ndjsonLines(chunks(`${line}\n`, `${line} \n`, `${line}\n`), {
        maxLineBytes: line.length,
      })) {
        seen.push(taken);
      }
    })().catch((caught: unknown) => caught as AppError);
    expect(seen).toEqual([line]);
    expect(error?.code).toBe("upstream:ollama_line_too_long");
  });

  it("ends the reply as soon as an unfinished line is longer than maxLineBytes", async () => {
    const error = await lines(chunks("x".repeat(11)), 10).catch((caught: unknown) => caught as AppError);
    expect(error).toMatchObject({ code: "upstream:ollama_line_too_long" });
  });
});

describe("a non-streamed body", () => {
  it("is read whole up to the limit and refused one byte beyond it", async () => {
    expect(await readCapped(chunks('{"done":', "true}"), 13)).toBe('{"done":true}');
    const error = await readCapped(chunks('{"done":', "true} "), 13).catch((caught: unknown) => caught as AppError);
    expect(error).toMatchObject({ code: "upstream:ollama_line_too_long" });
  });
});
