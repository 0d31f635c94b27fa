import { once } from "node:events";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import type { AppError } from "@/lib/errors";
import { createOllamaLLM } from "./ollama-llm";
import { ndjsonLines } from "./ollama-stream";
import type { ChatMessage, LLM } from "./types";

/**
 * A broken "Ollama" on loopback that the fake in tests/fake-ollama must not become: one endless
 * line, a reply that never ends. Each test gets its own server and says what it sends.
 */

const MB = 1024 * 1024;

interface BrokenServer {
  url: string;
  /** Bytes of reply body written before the client went away or the reply ended. */
  written: () => number;
  /** Whether the client closed the connection before the reply ended. */
  clientLeft: () => boolean;
  /** TCP connections the client opened. */
  connections: () => number;
  close: () => Promise<void>;
}

const servers: BrokenServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

type Reply = (res: ServerResponse, count: (bytes: number) => void) => Promise<void>;

async function brokenOllama(reply: Reply, contentType = "application/x-ndjson"): Promise<BrokenServer> {
  let written = 0;
  let clientLeft = false;
  let connections = 0;
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    req.resume();
    res.on("close", () => {
      if (!res.writableFinished) clientLeft = true;
    });
    res.writeHead(200, { "Content-Type": contentType });
    void reply(res, (bytes) => {
      written += bytes;
    }).catch(() => {});
  });
  server.on("connection", () => connections++);
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const broken: BrokenServer = {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    written: () => written,
    clientLeft: () => clientLeft,
    connections: () => connections,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  servers.push(broken);
  return broken;
}

/** Writes respecting backpressure; false once the client has gone. */
async function write(res: ServerResponse, data: Buffer | string, count: (bytes: number) => void): Promise<boolean> {
  if (res.destroyed) return false;
  count(Buffer.byteLength(data));
  if (res.write(data)) return true;
  await new Promise<void>((resolve) => {
    const go = () => {
      res.off("drain", go);
      res.off("close", go);
      resolve();
    };
    res.on("drain", go);
    res.on("close", go);
  });
  return !res.destroyed;
}

const LINE_START = '{"model":"m","created_at":"2025-01-01T00:00:00Z","message":{"role":"assistant","content":"';
const DONE_LINE =
  '{"model":"m","created_at":"2025-01-01T00:00:00Z","message":{"role":"assistant","content":""},"done":true,"done_reason":"stop"}\n';

/** One NDJSON line whose content is `contentBytes` long, sent in 64 KB writes, then (if it ends) the final line. */
function hugeLine(contentBytes: number, { ends = true } = {}): Reply {
  return async (res, count) => {
    const piece = Buffer.alloc(64 * 1024, "a");
    if (!(await write(res, LINE_START, count))) return;
    for (let sent = 0; sent < contentBytes; sent += piece.length) {
      if (!(await write(res, piece.subarray(0, Math.min(piece.length, contentBytes - sent)), count))) return;
    }
    if (!ends) return;
    await write(res, `"},"done":false}\n${DONE_LINE}`, count);
    res.end();
  };
}

/** A reply that never ends: a small chunk every few milliseconds, forever. */
const trickle: Reply = async (res, count) => {
  const line =
    '{"model":"m","created_at":"2025-01-01T00:00:00Z","message":{"role":"assistant","content":"a"},"done":false}\n';
  while (await write(res, line, count)) await new Promise((resolve) => setTimeout(resolve, 5));
};

const question: ChatMessage[] = [{ role: "user", content: "hello" }];
const abilities = { tool_call: false, json_mode: true, thinking: false, vision: false };

function llmAt(url: string, limits: { maxLineBytes?: number; timeoutMs?: number }): LLM {
  return createOllamaLLM({ baseUrl: url, model: "m", abilities, modelContextLength: 4096, numCtx: 4096, ...limits });
}

async function streamError(llm: LLM): Promise<AppError> {
  try {
    for await (const _part of llm.streamChat(question)) {
      // drain
    }
  } catch (error) {
    return error as AppError;
  }
  throw new Error("the stream ended without an error");
}

async function* bodyOf(response: Response): AsyncGenerator<Uint8Array> {
  const reader = (response.body as ReadableStream<Uint8Array>).getReader();
  for (let read = await reader.read(); !read.done; read = await reader.read()) yield read.value;
}

describe("Ollama's NDJSON lines are split in linear time", () => {
  it("searches each received byte once for a line end, even in one 50 MB line", async () => {
    const contentBytes = 50 * MB;
    const server = await brokenOllama(hugeLine(contentBytes));
    let scanned = 0;
    const lines: string[] = [];
    const response = await fetch(`${server.url}/api/chat`, { method: "POST", body: "{}" });
    for await (const line of ndjsonLines(bodyOf(response), {
      maxLineBytes: 64 * MB,
      onScan: (bytes) => {
        scanned += bytes;
      },
    })) {
      lines.push(line);
    }

    expect(scanned).toBe(server.written());
    expect(lines.reduce((sum, line) => sum + line.length + 1, 0)).toBe(server.written());
    expect(`${lines.at(-1)}\n`).toBe(DONE_LINE);
  }, 60_000);
});

describe("a line longer than OLLAMA_MAX_LINE_MB", () => {
  it("cuts a streamed reply off with an error naming the limit, and cancels the request", async () => {
    const server = await brokenOllama(hugeLine(60 * MB, { ends: false }));
    const error = await streamError(llmAt(server.url, { maxLineBytes: 1 * MB }));

    expect(error.code).toBe("upstream:ollama_line_too_long");
    expect(error.message).toContain("OLLAMA_MAX_LINE_MB");
    expect(error.message).toContain("1 MB");
    await expect.poll(() => server.clientLeft()).toBe(true);
    expect(server.written()).toBeLessThan(60 * MB);
  }, 60_000);

  it("refuses a non-streamed reply longer than the limit the same way", async () => {
    const server = await brokenOllama(hugeLine(3 * MB), "application/json; charset=utf-8");
    const error = (await llmAt(server.url, { maxLineBytes: 1 * MB })
      .chat(question)
      .catch((caught: unknown) => caught)) as AppError;

    expect(error.code).toBe("upstream:ollama_line_too_long");
  });
});

describe("OLLAMA_TIMEOUT_S covers the whole reply", () => {
  it("cuts a streamed reply that keeps trickling bytes at the timeout, with a timeout error", async () => {
    const server = await brokenOllama(trickle);
    const error = await streamError(llmAt(server.url, { timeoutMs: 300 }));

    expect(error.code).toBe("upstream:ollama_timeout");
    expect(error.retryable).toBe(true);
    await expect.poll(() => server.clientLeft()).toBe(true);
  });

  it("cuts a non-streamed reply whose body never ends the same way", async () => {
    const server = await brokenOllama(trickle, "application/json");
    const error = (await llmAt(server.url, { timeoutMs: 300 })
      .chat(question)
      .catch((caught: unknown) => caught)) as AppError;

    expect(error.code).toBe("upstream:ollama_timeout");
    await expect.poll(() => server.clientLeft()).toBe(true);
  });
});

describe("the connection to Ollama", () => {
  it("a reply whose body ends before Ollama's done line is a broken connection, after the deltas before it", async () => {
    const server = await brokenOllama(async (res, count) => {
      await write(res, `${LINE_START}par"},"done":false}\n${LINE_START}tial"},"done":false}\n`, count);
      res.end();
    });
    const texts: string[] = [];
    const error = await (async () => {
      for await (const part of llmAt(server.url, {}).streamChat(question))
        if (part.type === "text") texts.push(part.text);
    })().catch((caught: unknown) => caught as AppError);

    expect(texts).toEqual(["par", "tial"]);
    expect(error).toMatchObject({ code: "upstream:ollama_connection", retryable: true });
  });

  it("a reply read to its end leaves its connection open for the next call", async () => {
    const server = await brokenOllama(async (res, count) => {
      await write(res, `${LINE_START}hi"},"done":false}\n${DONE_LINE}`, count);
      res.end();
    });
    const llm = llmAt(server.url, {});
    for (let call = 0; call < 3; call++) {
      for await (const _part of llm.streamChat(question)) {
        // drain
      }
    }

    expect(server.connections()).toBe(1);
  });
});
