import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { POST as addUser } from "@/app/api/admin/users/route";
import { POST as createConversation } from "@/app/api/conversations/route";
import { GET as events } from "@/app/api/runs/[runId]/events/route";
import { getLiveRuns } from "@/lib/chat/chat-service";
import { LiveRun, LiveRuns } from "@/lib/chat/live-run";
import { Cluster, startCluster, stopCluster } from "@/lib/cluster/cluster";
import { closeDb, type Db, getDb, openPostgresDb } from "@/lib/db/client";
import { appendRunEvent, createRun } from "@/lib/db/runs";
import { resetConfigForTests } from "@/lib/env-config";
import type { SentRunEvent } from "@/lib/protocol/run-events";
import { setupFakeOllama } from "@/tests/fake-ollama/test-helpers";
import { signIn, signUp, type TestClient } from "@/tests/support/accounts";
import { expectApiError, params, readEvents, setupAppEnv } from "@/tests/support/app-env";

/**
 * `GET /api/runs/:id/events` on an instance that does not hold the run: this test process's app is
 * instance "b" (its cluster is the one the route sees); instance "a", with its own pool, live runs
 * and link, holds the runs and stores their events in the same PostgreSQL.
 */

const fake = setupFakeOllama();
setupAppEnv(fake);

const HEARTBEAT_MS = 60_000;
const PASSWORD = "correct horse battery";
let alice: TestClient;
let bob: TestClient;
let a: { db: Db; liveRuns: LiveRuns; cluster: Cluster };

beforeAll(async () => {
  process.env.AUTH_MODE = "required";
  process.env.MAX_FOLLOWS_PER_RUN = "2";
  resetConfigForTests();
  // The first account is the admin; it adds the second (sign-up is closed from then on).
  alice = await signUp("alice");
  const added = await addUser(alice.request("/api/admin/users", "POST", { username: "bob", password: PASSWORD }));
  expect(added.status).toBe(201);
  bob = await signIn("bob", PASSWORD);
  const url = process.env.DATABASE_URL ?? "";
  await startCluster(await getDb(), getLiveRuns(), { url, id: "b", heartbeatMs: HEARTBEAT_MS });
  const db = await openPostgresDb(url);
  const liveRuns = new LiveRuns(0);
  a = { db, liveRuns, cluster: await Cluster.start(db, liveRuns, { url, id: "a", heartbeatMs: HEARTBEAT_MS }) };
});

afterAll(async () => {
  await stopCluster();
  await a?.cluster.stop();
  if (a) await closeDb(a.db);
  delete process.env.AUTH_MODE;
  delete process.env.MAX_FOLLOWS_PER_RUN;
  resetConfigForTests();
});

/** A run of alice's held by instance "a": stored with "a" as its owner, its events stored as it emits them. */
async function aliceRunOnA(): Promise<LiveRun> {
  const created = await createConversation(alice.request("/api/conversations", "POST", {}));
  const { conversation } = (await created.json()) as { conversation: { id: string } };
  const run = await createRun(a.db, { conversationId: conversation.id, mode: "native", model: "m", instanceId: "a" });
  const live = new LiveRun({
    runId: run.id,
    conversationId: conversation.id,
    persist: (event, seq) => appendRunEvent(a.db, { runId: run.id, seq, event }),
    interruptLimits: { maxCount: 2, maxBytes: 1000 },
  });
  expect(a.liveRuns.reserve(live, { perUser: 5, total: 5 })).toBeNull();
  live.markStarted(run);
  live.emit("run", { runId: run.id, conversationId: conversation.id, userMessageId: "q", model: "m", mode: "native" });
  live.emitStep({ type: "tool_call", iteration: 1, callId: "c1", tool: "scrape_url", args: { url: "x" } }, 1);
  return live;
}

function finish(live: LiveRun) {
  live.emitStep(
    {
      type: "tool_result",
      iteration: 1,
      callId: "c1",
      tool: "scrape_url",
      ok: true,
      observation: `ページ ${"ü".repeat(9_000)}`,
      durationMs: 3,
    },
    2,
  );
  live.emit("answer", { status: "start" });
  for (const content of ["Through ", "another ", "instance."])
    live.emit("answer", { status: "delta", content }, { store: false });
  live.emit("answer", { status: "done" });
  live.emit("done", {
    messageId: live.messageId,
    iterations: 1,
    usage: { inputTokens: 1, outputTokens: 1, totalTokens: 2 },
    elapsedMs: 5,
  });
  live.end();
}

/** What a client of the owner gets from `after` on, as it travels. */
function ownersEvents(live: LiveRun, after = "0") {
  const seen: SentRunEvent[] = [];
  live.subscribe(
    (event) => seen.push(event),
    () => {},
    after,
  );
  return JSON.parse(JSON.stringify(seen)) as SentRunEvent[];
}

const eventsThroughB = (who: TestClient, runId: string, after = "0") =>
  events(who.request(`/api/runs/${runId}/events?after=${after}`, "GET"), params({ runId }));

describe("following a run through an instance that does not hold it", () => {
  it("a client following through another instance gets exactly what the owner's clients get, to done", async () => {
    const live = await aliceRunOnA();
    const response = await eventsThroughB(alice, live.runId);
    expect(response.status).toBe(200);
    const reading = readEvents(response);
    await expect.poll(() => live.subscriberCount).toBe(1);
    finish(live);
    const received = await reading;
    expect(received).toEqual(ownersEvents(live));
    expect(received.map((event) => event.id)).toEqual(["1", "2", "3", "4", "4.1", "4.2", "4.3", "5", "6"]);
  });

  it("clients of one run through another instance share its follow, MAX_FOLLOWS_PER_RUN at most: one more is a 429", async () => {
    const live = await aliceRunOnA();
    const first = await eventsThroughB(alice, live.runId);
    const second = await eventsThroughB(alice, live.runId);
    expect([first.status, second.status]).toEqual([200, 200]);
    await expect.poll(() => live.subscriberCount).toBe(1);
    await expectApiError(await eventsThroughB(alice, live.runId), 429, "rate_limited:follows_per_run");
    const reading = [readEvents(first), readEvents(second)];
    finish(live);
    const [one, two] = await Promise.all(reading);
    expect(one).toEqual(ownersEvents(live));
    expect(two).toEqual(ownersEvents(live));
    // Its slot back: the owner's live runs are capped per user, like any instance's.
    a.liveRuns.release(live);
  });

  it("a client reconnecting mid-answer with `after` resumes after that event, none twice", async () => {
    const live = await aliceRunOnA();
    live.emit("answer", { status: "start" });
    live.emit("answer", { status: "delta", content: "first " }, { store: false });
    live.emit("answer", { status: "delta", content: "second" }, { store: false });
    const reading = readEvents(await eventsThroughB(alice, live.runId, "3.1"));
    live.emit("answer", { status: "done" });
    live.emit("done", {
      messageId: live.messageId,
      iterations: 1,
      usage: { inputTokens: 1, outputTokens: 1, totalTokens: 2 },
      elapsedMs: 5,
    });
    live.end();
    const received = await reading;
    expect(received.map((event) => event.id)).toEqual(["3.2", "4", "5"]);
    expect(received).toEqual(ownersEvents(live, "3.1"));
  });

  it("a client leaving stops the owner's forwarding: the run's subscribers are its own again", async () => {
    const live = await aliceRunOnA();
    const response = await eventsThroughB(alice, live.runId);
    await expect.poll(() => live.subscriberCount).toBe(1);
    await readEvents(response, (event) => event.id === "2");
    await expect.poll(() => live.subscriberCount).toBe(0);
    expect(a.cluster.follows.forwardingCount).toBe(0);
    finish(live);
  });

  it("another user's run is 404 through the other instance, and nothing is followed", async () => {
    const live = await aliceRunOnA();
    const response = await eventsThroughB(bob, live.runId);
    expect(response.status).toBe(404);
    expect(((await response.json()) as { error: { code: string } }).error.code).toMatch(/^not_found:/);
    expect([live.subscriberCount, a.cluster.follows.forwardingCount]).toEqual([0, 0]);
    finish(live);
  });

  it("a run the owner no longer holds is replayed from the database after the client's position, and the stream closes", async () => {
    const live = await aliceRunOnA();
    await live.writesSettled();
    // The owner lost it (a restart): the run is still `running` in the database, owned by "a".
    a.liveRuns.release(live);
    const received = await readEvents(await eventsThroughB(alice, live.runId, "1"));
    expect(received.map((event) => [event.id, event.event])).toEqual([["2", "step"]]);
  });
});
