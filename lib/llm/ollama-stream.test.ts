import { describe, expect, it } from "vitest";
import { AppError } from "@/lib/errors";
import { type GenerationStats, LINES_PER_TURN, surfaceMidStreamErrors } from "./ollama-stream";

async function readAll(stream: ReadableStream<Uint8Array>): Promise<string> {
  return new Response(stream).text();
}

function streamOf(...parts: string[]): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  return new ReadableStream({
    start(controller) {
      for (const part of parts) controller.enqueue(encoder.encode(part));
      controller.close();
    },
  });
}

describe("mid-stream errors", () => {
  it("passes ordinary NDJSON through line by line, even when lines are split across chunks", async () => {
    const errors: AppError[] = [];
    const stream = surfaceMidStreamErrors(
      streamOf('{"message":{"content":"a"},', '"done":false}\n{"done":true}'),
      (e) => errors.push(e),
    );
    expect(await readAll(stream)).toBe('{"message":{"content":"a"},"done":false}\n{"done":true}\n');
    expect(errors).toEqual([]);
  });

  it('reports Ollama\'s own text when an {"error"} line arrives after the 200, keeping the lines before it', async () => {
    const errors: AppError[] = [];
    const stream = surfaceMidStreamErrors(
      streamOf(
        '{"message":{"content":"a"},"done":false}\n{"error":"model runner has unexpectedly stopped"}\n{"x":1}\n',
      ),
      (e) => errors.push(e),
    );
    expect(await readAll(stream)).toBe('{"message":{"content":"a"},"done":false}\n');
    expect(errors).toHaveLength(1);
    expect(errors[0]).toBeInstanceOf(AppError);
    expect(errors[0]?.message).toContain("model runner has unexpectedly stopped");
  });

  it('does not mistake content that mentions "error" for an error line', async () => {
    const line = '{"message":{"content":"{\\"error\\": 1}"},"done":false}';
    const errors: AppError[] = [];
    expect(await readAll(surfaceMidStreamErrors(streamOf(`${line}\n`), (e) => errors.push(e)))).toBe(`${line}\n`);
    expect(errors).toEqual([]);
  });
});

describe("line splitting on bytes", () => {
  it("keeps a character whose bytes are split across chunks whole", async () => {
    const bytes = new TextEncoder().encode('{"message":{"content":"日本"}}\n');
    const cut = bytes.indexOf(0xe6) + 1; // inside the first character
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(bytes.subarray(0, cut));
        controller.enqueue(bytes.subarray(cut));
        controller.close();
      },
    });
    expect(await readAll(surfaceMidStreamErrors(stream, () => {}))).toBe('{"message":{"content":"日本"}}\n');
  });

  it("takes a line of exactly maxLineBytes and cuts off the reply at a line one byte longer", async () => {
    const line = '{"done":false}';
    const errors: AppError[] = [];
    const ok = surfaceMidStreamErrors(streamOf(`${line}\n`), (e) => errors.push(e), { maxLineBytes: line.length });
    expect(await readAll(ok)).toBe(`${line}\n`);
    expect(errors).toEqual([]);

    const cut = surfaceMidStreamErrors(streamOf(`${line}\n`, `${line} \n`, `${line}\n`), (e) => errors.push(e), {
      maxLineBytes: line.length,
    });
    expect(await readAll(cut)).toBe(`${line}\n`);
    expect(errors.map((e) => e.code)).toEqual(["upstream:ollama_line_too_long"]);
  });
});

describe("bursts", () => {
  it("passes on a burst of lines in slices, the first before the rest is handed on", async () => {
    const lines = Array.from({ length: 5 * LINES_PER_TURN + 3 }, (_, i) => `{"message":{"content":"t${i} "}}\n`);
    const reader = surfaceMidStreamErrors(streamOf(lines.join("")), () => {}).getReader();
    const decoder = new TextDecoder();
    const slices: string[] = [];
    for (let read = await reader.read(); !read.done; read = await reader.read()) {
      slices.push(decoder.decode(read.value));
    }
    expect(slices[0]).toBe(lines.slice(0, LINES_PER_TURN).join(""));
    expect(slices.join("")).toBe(lines.join(""));
  });
});

describe("generation stats", () => {
  it("reports eval_count and eval_duration of the final line only, split across chunks or not", async () => {
    const seen: GenerationStats[] = [];
    const body = surfaceMidStreamErrors(
      streamOf(
        '{"message":{"role":"assistant","content":"\\"done\\":true"},"done":false}\n{"message":{"role":"assistant","con',
        'tent":""},"done":true,"eval_count":15,"eval_duration":115959084}\n',
      ),
      () => {},
      { onDone: (stats) => seen.push(stats) },
    );
    await readAll(body);
    expect(seen).toEqual([{ evalCount: 15, evalDurationNs: 115959084 }]);
  });
});
