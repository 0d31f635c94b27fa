import path from "node:path";
import Database from "better-sqlite3";
import { afterEach, describe, expect, it } from "vitest";
import { POST as chat } from "@/app/api/chat/route";
import { POST as create, GET as list } from "@/app/api/conversations/route";
import { GET as health } from "@/app/api/health/route";
import { getLiveRuns } from "@/lib/chat/chat-service";
import { readSse } from "@/lib/client/sse";
import { DB_FILENAME, getDb } from "@/lib/db/client";
import { getRun, runMessage } from "@/lib/db/runs";
import { setupFakeOllama } from "@/tests/fake-ollama/test-helpers";
import { jsonRequest, newConversation, setupAppEnv } from "@/tests/support/app-env";

/**
 * Another process holding SQLite's write lock (here a second connection with BEGIN IMMEDIATE on
 * the same file): writes fail fast with a 503 and Retry-After instead of blocking the server and
 * answering 500, health says the database is busy, and a streaming run still ends for its client.
 */

const fake = setupFakeOllama();
const env = setupAppEnv(fake);

let holder: Database.Database | undefined;

function holdWriteLock(): void {
  holder = new Database(path.join(env.dataDir(), DB_FILENAME));
  holder.exec("BEGIN IMMEDIATE");
}

function releaseWriteLock(): void {
  if (holder?.inTransaction) holder.exec("ROLLBACK");
  holder?.close();
  holder = undefined;
}

afterEach(releaseWriteLock);

async function conversationCount(): Promise<number> {
  const body = (await (await list(jsonRequest("/api/conversations", "GET"))).json()) as { conversations: unknown[] };
  return body.conversations.length;
}

describe("a database locked by another process", () => {
  it("answers a write with 503 database_busy, Retry-After and retryable, and stores nothing", async () => {
    const before = await conversationCount();
    holdWriteLock();
    const response = await create(jsonRequest("/api/conversations", "POST", { title: "while locked" }));

    expect(response.status).toBe(503);
    expect(response.headers.get("retry-after")).toBe("1");
    const body = (await response.json()) as { error: { code: string; message: string; retryable?: boolean } };
    expect(body.error.code).toBe("unavailable:database_busy");
    expect(body.error.retryable).toBe(true);
    expect(body.error.message).toMatch(/busy/i);

    releaseWriteLock();
    expect(await conversationCount()).toBe(before);
    expect((await create(jsonRequest("/api/conversations", "POST", { title: "after" }))).status).toBe(201);
  });

  it("makes health report the database as busy with a 503, and ok again once the lock is gone", async () => {
    holdWriteLock();
    const busy = await health(jsonRequest("/api/health", "GET"));
    expect(busy.status).toBe(503);
    expect(busy.headers.get("retry-after")).toBe("1");
    expect(await busy.json()).toMatchObject({ ok: false, db: false, dbStatus: "busy" });

    releaseWriteLock();
    const ok = await health(jsonRequest("/api/health", "GET"));
    expect(ok.status).toBe(200);
    expect(await ok.json()).toMatchObject({ db: true, dbStatus: "ok" });
  });

  it("ends a run that streams while the lock is taken with an error event and done, then stores it once free", async () => {
    const conversationId = await newConversation();
    fake().script({ chunks: ["A ", "slow ", "answer ", "streams ", "here"], chunkDelayMs: 100 });
    const response = await chat(jsonRequest("/api/chat", "POST", { conversationId, message: "Tell me slowly" }));
    expect(response.status).toBe(200);
    if (!response.body) throw new Error("no body");

    const events: { event: string; data: Record<string, unknown> }[] = [];
    for await (const message of readSse(response.body)) {
      const event = { event: message.event, data: JSON.parse(message.data) as Record<string, unknown> };
      events.push(event);
      if (event.event === "answer" && event.data.status === "delta" && !holder) holdWriteLock();
    }

    const names = events.map((event) => event.event);
    expect(names.at(-1)).toBe("done");
    const error = events.find((event) => event.event === "error");
    expect(error?.data).toMatchObject({ code: "unavailable:answer_save_pending" });
    const runId = events.find((event) => event.event === "run")?.data.runId as string;
    const messageId = events.at(-1)?.data.messageId as string;
    expect((await getRun(await getDb(), { id: runId })).status).toBe("running");

    releaseWriteLock();
    await expect
      .poll(async () => (await getRun(await getDb(), { id: runId })).status, { timeout: 5000 })
      .toBe("complete");
    expect(await runMessage(await getDb(), { runId })).toMatchObject({
      id: messageId,
      content: "A slow answer streams here",
    });
    expect(getLiveRuns().forConversation(conversationId)).toBeUndefined();
  });
});
