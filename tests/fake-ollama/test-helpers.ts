// Shared plumbing for the fake's own tests: one server per file, reset between tests,
// plain fetch for requests and a line reader for NDJSON.
import { afterAll, beforeAll, beforeEach } from "vitest";
import type { WireToolCall } from "./decode";
import { type FakeOllama, startFakeOllama } from "./server";

export interface WireChunk {
  model?: string;
  created_at?: string;
  message?: { role: string; content: string; thinking?: string; tool_calls?: WireToolCall[] };
  done?: boolean;
  done_reason?: string;
  total_duration?: number;
  load_duration?: number;
  prompt_eval_count?: number;
  prompt_eval_duration?: number;
  eval_count?: number;
  eval_duration?: number;
  error?: string;
}

/** Starts one fake for the test file and resets it before each test. */
export function setupFakeOllama(): () => FakeOllama {
  let fake: FakeOllama | undefined;
  beforeAll(async () => {
    fake = await startFakeOllama();
  });
  afterAll(async () => {
    await fake?.close();
  });
  beforeEach(() => fake?.reset());
  return () => {
    if (!fake) throw new Error("fake ollama not started");
    return fake;
  };
}

export function post(url: string, body: unknown, init: RequestInit = {}): Promise<Response> {
  return fetch(url, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: typeof body === "string" ? body : JSON.stringify(body),
    ...init,
  });
}

export function chat(fake: FakeOllama, body: Record<string, unknown>, init: RequestInit = {}): Promise<Response> {
  return post(`${fake.url}/api/chat`, body, init);
}

export function userMessage(content: string) {
  return [{ role: "user", content }];
}

export async function readNdjson(res: Response): Promise<WireChunk[]> {
  const text = await res.text();
  expectNdjsonLines(text);
  return text
    .split("\n")
    .filter((line) => line !== "")
    .map((line) => JSON.parse(line) as WireChunk);
}

function expectNdjsonLines(text: string) {
  if (!text.endsWith("\n")) throw new Error(`NDJSON body must end with a newline: ${JSON.stringify(text)}`);
}

/** Reads lines from a streaming body as they arrive, with the time each one arrived. */
export async function* lines(res: Response): AsyncGenerator<{ chunk: WireChunk; at: number }> {
  if (!res.body) return;
  const reader = res.body.getReader();
  const decoder = new TextDecoder();
  let buffer = "";
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      buffer += decoder.decode(value, { stream: true });
      let newline = buffer.indexOf("\n");
      while (newline >= 0) {
        const line = buffer.slice(0, newline);
        buffer = buffer.slice(newline + 1);
        if (line) yield { chunk: JSON.parse(line) as WireChunk, at: Date.now() };
        newline = buffer.indexOf("\n");
      }
    }
  } finally {
    reader.releaseLock();
  }
}

export async function until(condition: () => boolean, timeoutMs = 2000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error("condition not met in time");
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
