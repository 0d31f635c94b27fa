// Shared plumbing for the fake's own tests: one server per flavour and file, reset between tests,
// raw fetch, and an SSE reader that checks the framing a client relies on.
import { afterAll, beforeAll, beforeEach } from "vitest";
import { type FakeOpenAI, type FakeOpenAIOptions, startFakeOpenAI } from "./server";

// biome-ignore lint/suspicious/noExplicitAny: tests read whatever the server sent
export type Json = any;

export function setupFakeOpenAI(options: FakeOpenAIOptions): () => FakeOpenAI {
  let fake: FakeOpenAI | undefined;
  beforeAll(async () => {
    fake = await startFakeOpenAI(options);
  });
  afterAll(async () => {
    await fake?.close();
  });
  beforeEach(() => fake?.reset());
  return () => {
    if (!fake) throw new Error("fake openai not started");
    return fake;
  };
}

export function chat(fake: FakeOpenAI, body: Record<string, unknown>, init: RequestInit = {}): Promise<Response> {
  return fetch(`${fake.url}/v1/chat/completions`, {
    method: "POST",
    ...init,
    headers: { "Content-Type": "application/json", ...init.headers },
    body: JSON.stringify(body),
  });
}

export const user = (content: string) => [{ role: "user", content }];

export const webSearch = {
  type: "function",
  function: {
    name: "web_search",
    description: "Search the web",
    parameters: { type: "object", properties: { query: { type: "string" } }, required: ["query"] },
  },
};

/** The events of an SSE body: every `data:` payload, JSON parsed except the final `[DONE]`. */
export async function readSse(res: Response): Promise<{ events: Json[]; done: boolean }> {
  const text = await res.text();
  const blocks = text.split("\n\n");
  if (blocks.pop() !== "") throw new Error(`SSE body must end with a blank line: ${JSON.stringify(text.slice(-80))}`);
  const payloads = blocks.map((block) => {
    if (!block.startsWith("data: ")) throw new Error(`not a data event: ${JSON.stringify(block)}`);
    return block.slice("data: ".length);
  });
  const done = payloads.at(-1) === "[DONE]";
  return { events: (done ? payloads.slice(0, -1) : payloads).map((p) => JSON.parse(p)), done };
}

/** What a client assembles from the deltas: text, reasoning and each call's arguments joined by index. */
export function assemble(events: Json[], reasoningField: string) {
  const deltas = events.flatMap((e) => (e.choices ?? []).map((c: Json) => c.delta ?? {}));
  const calls: { id?: string; name?: string; arguments: string }[] = [];
  for (const delta of deltas) {
    for (const part of delta.tool_calls ?? []) {
      calls[part.index] ??= { arguments: "" };
      const call = calls[part.index] as { id?: string; name?: string; arguments: string };
      call.id ??= part.id;
      call.name ??= part.function?.name;
      call.arguments += part.function?.arguments ?? "";
    }
  }
  return {
    content: deltas.map((d) => d.content ?? "").join(""),
    reasoning: deltas.map((d) => d[reasoningField] ?? "").join(""),
    calls,
    finishReasons: events.flatMap((e) => (e.choices ?? []).map((c: Json) => c.finish_reason)).filter(Boolean),
  };
}

export async function until(condition: () => boolean, timeoutMs = 2000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error("condition not met in time");
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
