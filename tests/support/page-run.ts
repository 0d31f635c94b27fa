import { expect } from "vitest";
import { POST as chat } from "@/app/api/chat/route";
import { POST as create } from "@/app/api/conversations/route";
import type { FakeOllama } from "@/tests/fake-ollama/server";
import type { TestClient } from "./accounts";
import { type ParsedEvent, readEvents, waitIdle } from "./app-env";
import type { FakeWeb } from "./fake-web";

/**
 * A turn that reads one page of the fake web and answers from it: the run stores the page as its
 * source 1 (docs/research.md, "The source store"), which the answer may cite as `[1]`.
 */

export const OLLAMA_PAGE = "<article><p>Ollama runs large language models locally on your own computer.</p></article>";

/** Scripts the fake model to read `/ollama` of the fake web, then to answer `answer`. */
export function scriptPageAnswer(fake: FakeOllama, web: FakeWeb, answer: string): void {
  web.routes.set("/ollama", { body: OLLAMA_PAGE });
  fake.script(
    { when: { hasTools: true }, toolCalls: [{ name: "scrape_url", arguments: { url: `${web.url}/ollama` } }] },
    { when: { hasTools: true }, content: "The page says what Ollama does." },
    { when: { hasTools: false, stream: true }, chunks: [answer] },
  );
}

/** A new conversation of `user`; its id. */
export async function conversationOf(user: TestClient): Promise<string> {
  const response = await create(user.request("/api/conversations", "POST", {}));
  expect(response.status).toBe(201);
  return ((await response.json()) as { conversation: { id: string } }).conversation.id;
}

/** `user` asks `message` in the conversation; the run's events, once it is idle. */
export async function runChatAs(
  user: TestClient,
  fake: FakeOllama,
  conversationId: string,
  message: string,
): Promise<ParsedEvent[]> {
  const response = await chat(user.request("/api/chat", "POST", { conversationId, message }));
  expect(response.status).toBe(200);
  const events = await readEvents(response);
  await waitIdle(fake, conversationId);
  return events;
}
