import { describe, expect, it } from "vitest";
import { readRunEvents, readSse, type SseMessage } from "./sse";

function streamOf(chunks: (string | Uint8Array)[]): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  return new ReadableStream({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(typeof chunk === "string" ? encoder.encode(chunk) : chunk);
      controller.close();
    },
  });
}

async function collect<T>(items: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of items) out.push(item);
  return out;
}

const parseChunks = (chunks: string[]): Promise<SseMessage[]> => collect(readSse(streamOf(chunks)));

describe("readSse", () => {
  it("parses event, data and id of a whole frame", async () => {
    expect(await parseChunks(['id: 3\nevent: run\ndata: {"runId":"r1"}\n\n'])).toEqual([
      { event: "run", data: '{"runId":"r1"}', id: "3" },
    ]);
  });

  it("reassembles a frame split at every possible position", async () => {
    const frame = 'id: 1\nevent: answer\ndata: {"status":"delta","content":"héllo"}\n\n';
    for (let cut = 1; cut < frame.length; cut++) {
      expect(await parseChunks([frame.slice(0, cut), frame.slice(cut)])).toEqual([
        { event: "answer", data: '{"status":"delta","content":"héllo"}', id: "1" },
      ]);
    }
  });

  it("accepts CRLF and lone CR line ends, even with CRLF split across chunks", async () => {
    expect(await parseChunks(["event: a\r", "\ndata: 1\r\n\r", "\nevent: b\rdata: 2\r\r"])).toEqual([
      { event: "a", data: "1", id: null },
      { event: "b", data: "2", id: null },
    ]);
  });

  it("ignores comment lines such as keepalives", async () => {
    expect(await parseChunks([": connected\n\n: keepalive\n\nevent: done\n: in between\ndata: {}\n\n"])).toEqual([
      { event: "done", data: "{}", id: null },
    ]);
  });

  it("joins multi-line data with newlines and strips one leading space only", async () => {
    expect(await parseChunks(["data: line one\ndata:  two\ndata\n\n"])).toEqual([
      { event: "message", data: "line one\n two\n", id: null },
    ]);
  });

  it("does not dispatch a frame without data, nor an unterminated frame at the end", async () => {
    expect(await parseChunks(["event: lonely\n\nevent: cut\ndata: {}"])).toEqual([]);
  });
});

describe("readSse over bytes", () => {
  it("decodes UTF-8 split inside a character and yields every frame of the body", async () => {
    const bytes = new TextEncoder().encode('event: answer\ndata: {"content":"日本"}\n\nevent: done\ndata: {}\n\n');
    const messages: SseMessage[] = [];
    for await (const message of readSse(streamOf([bytes.slice(0, 25), bytes.slice(25, 27), bytes.slice(27)]))) {
      messages.push(message);
    }
    expect(messages.map((m) => [m.event, m.data])).toEqual([
      ["answer", '{"content":"日本"}'],
      ["done", "{}"],
    ]);
  });
});

describe("readRunEvents", () => {
  it("yields the run protocol's events with their ids, and skips unknown names and data that is not JSON", async () => {
    const body = streamOf([
      'id: 1\nevent: answer\ndata: {"status":"start"}\n\n',
      'id: 2\nevent: surprise\ndata: {"x":1}\n\n',
      "id: 3\nevent: answer\ndata: not json\n\n",
      'data: {"status":"done"}\n\n',
      'id: 2.1\nevent: answer\ndata: {"status":"delta","content":"hi"}\n\n',
    ]);
    expect(await collect(readRunEvents(body))).toEqual([
      { event: "answer", data: { status: "start" }, id: "1" },
      { event: "answer", data: { status: "delta", content: "hi" }, id: "2.1" },
    ]);
  });
});
