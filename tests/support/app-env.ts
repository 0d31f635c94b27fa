import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, expect } from "vitest";
import { POST as createConversation } from "@/app/api/conversations/route";
import { getLiveRuns } from "@/lib/chat/chat-service";
import { readSse } from "@/lib/client/sse";
import { closeDbForTests, getDb } from "@/lib/db/client";
import { listRuns } from "@/lib/db/runs";
import { resetConfigForTests } from "@/lib/env-config";
import { decodeRunEvent, isRunEventName } from "@/lib/protocol/run-events";
import type { FakeOllama } from "@/tests/fake-ollama/server";
import { type FakeWeb, startFakeWeb } from "./fake-web";

/**
 * Points the app's config at a fresh DATA_DIR, the fake Ollama and a fake web server (search
 * included) for one test file, so no tool ever reaches past loopback.
 */
export function setupAppEnv(fake: () => FakeOllama): { dataDir: () => string; web: () => FakeWeb } {
  let dir = "";
  let web: FakeWeb | undefined;
  beforeAll(async () => {
    web = await startFakeWeb();
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "ollama-web-api-"));
    process.env.DATA_DIR = dir;
    process.env.OLLAMA_BASE_URL = fake().url;
    process.env.FETCH_ALLOW_PRIVATE = web.hostPort;
    process.env.DUCKDUCKGO_URL = `${web.url}/html/`;
    process.env.SEARCH_BACKEND = "duckduckgo";
    resetConfigForTests();
    await closeDbForTests();
    await getDb();
  });
  afterAll(async () => {
    await closeDbForTests();
    fs.rmSync(dir, { recursive: true, force: true });
    await web?.close();
  });
  return {
    dataDir: () => dir,
    web: () => {
      if (!web) throw new Error("fake web not started");
      return web;
    },
  };
}

export function jsonRequest(url: string, method: string, body?: unknown): Request {
  return new Request(`http://127.0.0.1${url}`, {
    method,
    headers: { "content-type": "application/json" },
    body: body === undefined ? undefined : typeof body === "string" ? body : JSON.stringify(body),
  });
}

export const params = <T extends Record<string, string>>(value: T) => ({ params: Promise.resolve(value) });

export interface ParsedEvent {
  event: string;
  data: Record<string, unknown>;
  id: string | null;
}

/**
 * Reads an SSE response to its end (or until `until` says stop). A run event whose data the run
 * protocol refuses fails the test: every API test checks the server's events against the schemas
 * the browser decodes them with.
 */
export async function readEvents(
  response: Response,
  until: (event: ParsedEvent) => boolean = () => false,
): Promise<ParsedEvent[]> {
  const events: ParsedEvent[] = [];
  if (!response.body) throw new Error("no body");
  for await (const message of readSse(response.body)) {
    const decoded = decodeRunEvent(message);
    if (!decoded.ok && isRunEventName(message.event)) throw new Error(`the server sent ${decoded.problem}`);
    const event = { event: message.event, data: JSON.parse(message.data) as Record<string, unknown>, id: message.id };
    events.push(event);
    if (until(event)) break;
  }
  return events;
}

/** Asserts an API error: its status and its code (`kind:thing`), and returns its message. */
export async function expectApiError(response: Response, status: number, code: string): Promise<string> {
  const body = (await response.json()) as { error?: { code?: string; message?: string } };
  expect({ status: response.status, code: body.error?.code }).toEqual({ status, code });
  return body.error?.message ?? "";
}

/**
 * Waits until the conversation is free, each of its runs has ended to its last step, and every
 * request to the fake model has ended. The conversation is free at `done`, but a first turn's title
 * is made after it: waiting for the run's own end keeps a late title request from reaching the next
 * test's fake model.
 */
export async function waitIdle(fake: FakeOllama, conversationId: string): Promise<void> {
  await expect.poll(() => getLiveRuns().forConversation(conversationId), { timeout: 5000 }).toBeUndefined();
  const db = await getDb();
  await expect
    .poll(async () =>
      (await listRuns(db, { conversationId })).every((run) => getLiveRuns().get(run.id)?.isEnded ?? true),
    )
    .toBe(true);
  await expect.poll(() => fake.chatRequests().every((r) => r.finished || r.aborted)).toBe(true);
}

/** A new conversation of the test's single user (the default model unless one is named); its id. */
export async function newConversation(model?: string): Promise<string> {
  const response = await createConversation(jsonRequest("/api/conversations", "POST", model ? { model } : {}));
  expect(response.status).toBe(201);
  return ((await response.json()) as { conversation: { id: string } }).conversation.id;
}
