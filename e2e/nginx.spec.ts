import { expect, test } from "@playwright/test";
import { type RunningNginx, requireNginx, startNginx } from "../tests/deploy/support/nginx";
import { fakeOllama } from "./support/fake-ollama";
import { APP_URL } from "./support/servers";

/**
 * The production app behind nginx running deploy/nginx/ollama-web.conf (its HTTPS server's directives,
 * over plain HTTP on a free loopback port; see tests/deploy/support/nginx.ts). The test's nginx.conf
 * compresses every type and ignores the app's "X-Accel-Buffering: no", so only the site's own
 * directives can keep the answer streaming.
 */

let nginx: RunningNginx;

test.beforeAll(async () => {
  requireNginx();
  nginx = await startNginx({ upstreams: [new URL(APP_URL).host] });
});

test.afterAll(async () => {
  await nginx?.stop();
});

test.beforeEach(async () => {
  await fakeOllama.reset();
});

/** What a browser on the proxied origin sends along with a POST. */
function jsonPost(body: unknown): RequestInit {
  return {
    method: "POST",
    headers: { "Content-Type": "application/json", Origin: nginx.url },
    body: JSON.stringify(body),
  };
}

async function createConversation(): Promise<string> {
  const response = await fetch(`${nginx.url}/api/conversations`, jsonPost({}));
  expect(response.status).toBe(201);
  const { conversation } = (await response.json()) as { conversation: { id: string } };
  return conversation.id;
}

interface SseFrame {
  event: string;
  data: Record<string, unknown>;
}

function parseFrames(text: string): SseFrame[] {
  return text
    .split("\n\n")
    .filter((frame) => /^event: /m.test(frame))
    .map((frame) => ({
      event: /^event: (.*)$/m.exec(frame)?.[1] ?? "",
      data: JSON.parse(/^data: (.*)$/m.exec(frame)?.[1] ?? "null") as Record<string, unknown>,
    }));
}

test("an answer streams through nginx delta by delta, the first one while Ollama is still generating", async () => {
  const conversationId = await createConversation();
  const chunks = Array.from({ length: 20 }, (_, i) => `word${i + 1} `);
  await fakeOllama.script({ when: { stream: true }, chunks, chunkDelayMs: 100 });

  const response = await fetch(`${nginx.url}/api/chat`, {
    ...jsonPost({ conversationId, message: "Stream this through nginx" }),
    headers: {
      "Content-Type": "application/json",
      Origin: nginx.url,
      Accept: "text/event-stream",
      "Accept-Encoding": "gzip, deflate",
    },
  });
  expect(response.status).toBe(200);
  expect(response.headers.get("content-type")).toMatch(/^text\/event-stream/);
  expect(response.headers.get("content-encoding")).toBeNull();
  expect(response.headers.get("cache-control")).toContain("no-cache");

  const reader = response.body?.getReader();
  if (!reader) throw new Error("no response body");
  const decoder = new TextDecoder();
  let pending = "";
  const frames: SseFrame[] = [];
  let readsWithDeltas = 0;
  let ollamaFinishedAtFirstDelta: boolean | undefined;
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    pending += decoder.decode(value, { stream: true });
    const end = pending.lastIndexOf("\n\n");
    if (end < 0) continue;
    const arrived = parseFrames(pending.slice(0, end + 2));
    pending = pending.slice(end + 2);
    frames.push(...arrived);
    if (!arrived.some((frame) => frame.event === "answer" && frame.data.status === "delta")) continue;
    readsWithDeltas++;
    if (ollamaFinishedAtFirstDelta === undefined) {
      // Causal, not timed: the fake Ollama is asked whether it has finished the streamed reply.
      const streamed = await fakeOllama.streamedChatRequests();
      expect(streamed).toHaveLength(1);
      ollamaFinishedAtFirstDelta = streamed[0]?.finished;
    }
  }

  // The first words reached the client through nginx while the model was still writing the rest…
  expect(ollamaFinishedAtFirstDelta).toBe(false);
  // …and the rest came in pieces too, not as one buffered block at the end.
  expect(readsWithDeltas).toBeGreaterThanOrEqual(5);
  const deltas = frames.filter((frame) => frame.event === "answer" && frame.data.status === "delta");
  expect(deltas.map((frame) => frame.data.content).join("")).toBe(chunks.join(""));
  // The run ends with done; the new conversation's title, made after it, may follow on the same stream.
  const events = frames.map((frame) => frame.event);
  expect(events.slice(events.indexOf("done"))).toEqual(events.at(-1) === "title" ? ["done", "title"] : ["done"]);
  expect((await fakeOllama.streamedChatRequests())[0]?.finished).toBe(true);
});

test("pages and JSON come through nginx with the forwarded headers, forged ones included", async () => {
  const conversationId = await createConversation();
  const forged = { "X-Forwarded-For": "203.0.113.7", "X-Forwarded-Host": "evil.example", "X-Real-IP": "203.0.113.7" };

  const list = await fetch(`${nginx.url}/api/conversations`, { headers: forged });
  expect(list.status).toBe(200);
  const { conversations } = (await list.json()) as { conversations: { id: string }[] };
  expect(conversations.map((conversation) => conversation.id)).toContain(conversationId);

  const health = await fetch(`${nginx.url}/api/health`, { headers: forged });
  expect(health.status).toBe(200);
  expect(await health.json()).toMatchObject({ ok: true, db: true });

  const page = await fetch(`${nginx.url}/c/${conversationId}`, { headers: forged });
  expect(page.status).toBe(200);
  expect(page.headers.get("content-type")).toMatch(/^text\/html/);
  expect(await page.text()).toContain("<html");
});

test("an upload larger than nginx's default 1 MB limit reaches the app", async () => {
  const conversationId = await createConversation();
  const form = new FormData();
  // A type the app does not take: the app, not nginx, refuses it, which shows the body got through.
  form.append(
    "file",
    new Blob([new Uint8Array(2 * 1024 * 1024).fill(120)], { type: "application/octet-stream" }),
    "notes.bin",
  );
  const response = await fetch(`${nginx.url}/api/conversations/${conversationId}/files`, {
    method: "POST",
    headers: { Origin: nginx.url },
    body: form,
  });
  expect(response.status).toBe(415);
  expect(await response.json()).toMatchObject({ error: { code: expect.stringMatching(/^unsupported_media_type/) } });
});

test("plain HTTP sends browsers to HTTPS with the same path and query", async () => {
  const response = await fetch(`${nginx.redirectUrl}/c/some-id?q=1`, { redirect: "manual" });
  expect(response.status).toBe(301);
  expect(response.headers.get("location")).toBe("https://127.0.0.1/c/some-id?q=1");
});
