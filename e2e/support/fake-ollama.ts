import { FAKE_OLLAMA_URL } from "./servers";

/** A request the fake Ollama recorded (see tests/fake-ollama/server.ts). */
export interface RecordedRequest {
  method: string;
  path: string;
  // biome-ignore lint/suspicious/noExplicitAny: whatever the app sent
  body: any;
  aborted: boolean;
  finished: boolean;
}

async function call<T>(method: "GET" | "POST", path: string, body?: unknown): Promise<T> {
  const response = await fetch(`${FAKE_OLLAMA_URL}${path}`, {
    method,
    headers: body === undefined ? undefined : { "Content-Type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (!response.ok) throw new Error(`fake Ollama ${method} ${path} → ${response.status}: ${await response.text()}`);
  return (await response.json()) as T;
}

/** The fake Ollama's control API. */
export const fakeOllama = {
  reset: () => call<{ ok: true }>("POST", "/__fake/reset"),
  requests: () => call<RecordedRequest[]>("GET", "/__fake/requests"),
  async chatRequests(): Promise<RecordedRequest[]> {
    return (await this.requests()).filter((request) => request.path === "/api/chat");
  },
  /** The streamed chat calls (Ollama streams unless `stream: false`): the answer the user watches. */
  async streamedChatRequests(): Promise<RecordedRequest[]> {
    return (await this.chatRequests()).filter((request) => request.body?.stream !== false);
  },
  /** Removes an installed model the way `ollama rm` does (`DELETE /api/delete`). */
  async deleteModel(model: string): Promise<void> {
    const response = await fetch(`${FAKE_OLLAMA_URL}/api/delete`, {
      method: "DELETE",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ model }),
    });
    if (!response.ok) throw new Error(`fake Ollama could not delete ${model}: ${response.status}`);
  },
  /** What `/api/pull` offers and how fast it downloads (see tests/fake-ollama/pull.ts). */
  registry: (patch: {
    chunksPerLayer?: number;
    chunkDelayMs?: number;
    unreachable?: boolean;
    diskFreeBytes?: number;
  }) => call<{ ok: true }>("POST", "/__fake/registry", patch),
  /** Queues replies (`content`, `chunks`, `chunkDelayMs`, `midStreamError`, …) for the next chats. */
  script: (...replies: Record<string, unknown>[]) => call<{ queued: number }>("POST", "/__fake/script", { replies }),
};

/**
 * The next streamed answer: "**Echo:** <label>" then `lines` list items ("- line N"), one every
 * `chunkDelayMs`. Tests that act while an answer streams size it so a busy machine cannot finish it
 * before they act (the `[slow]` marker's 39 lines take about 6 s).
 */
export function slowAnswer(label: string, lines: number, chunkDelayMs = 150): Record<string, unknown> {
  const items = Array.from({ length: lines }, (_, i) => `- line ${i + 1}\n`);
  return { when: { stream: true }, chunks: [`**Echo:** ${label}\n\n`, ...items], chunkDelayMs };
}
