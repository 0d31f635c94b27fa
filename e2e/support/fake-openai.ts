import { FAKE_OPENAI_URL } from "./servers";

/** A request the fake OpenAI-compatible server recorded (see tests/fake-openai/server.ts). */
export interface RecordedOpenAIRequest {
  method: string;
  path: string;
  // biome-ignore lint/suspicious/noExplicitAny: whatever the app sent
  body: any;
  headers: Record<string, string | string[] | undefined>;
  aborted: boolean;
  finished: boolean;
}

async function call<T>(method: "GET" | "POST", path: string, body?: unknown): Promise<T> {
  const response = await fetch(`${FAKE_OPENAI_URL}${path}`, {
    method,
    headers: body === undefined ? undefined : { "Content-Type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (!response.ok) throw new Error(`fake OpenAI ${method} ${path} → ${response.status}: ${await response.text()}`);
  return (await response.json()) as T;
}

/** The fake OpenAI-compatible server's control API (`/__fake/…`). */
export const fakeOpenAI = {
  reset: () => call<{ ok: true }>("POST", "/__fake/reset"),
  requests: () => call<RecordedOpenAIRequest[]>("GET", "/__fake/requests"),
  async chatRequests(): Promise<RecordedOpenAIRequest[]> {
    return (await this.requests()).filter((request) => request.path === "/v1/chat/completions");
  },
  /** Queues replies (`when`, `content`, `chunks`, `chunkDelayMs`, `toolCalls`, …) for the next chat calls. */
  script: (...replies: Record<string, unknown>[]) => call<{ queued: number }>("POST", "/__fake/script", { replies }),
};
