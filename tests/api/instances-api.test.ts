import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { DELETE as removeUser } from "@/app/api/admin/users/[userId]/route";
import { POST as interrupt } from "@/app/api/conversations/[id]/interrupt/route";
import { DELETE as deleteConversation } from "@/app/api/conversations/[id]/route";
import { POST as stop } from "@/app/api/conversations/[id]/stop/route";
import { POST as createConversation } from "@/app/api/conversations/route";
import { createUser } from "@/lib/auth/accounts";
import { getLiveRuns, startChat } from "@/lib/chat/chat-service";
import { LiveRuns } from "@/lib/chat/live-run";
import { Cluster, startCluster, stopCluster } from "@/lib/cluster/cluster";
import { MISSED_HEARTBEATS } from "@/lib/cluster/instance-registry";
import { closeDb, type Db, getDb, openPostgresDb } from "@/lib/db/client";
import { createConversation as createConversationRow, getConversation } from "@/lib/db/conversations";
import { listHeldInterrupts } from "@/lib/db/interrupts";
import { insertMessage, listMessages } from "@/lib/db/messages";
import { postgresPool } from "@/lib/db/postgres";
import { createRun, getRun } from "@/lib/db/runs";
import { setupFakeOllama } from "@/tests/fake-ollama/test-helpers";
import { setupAccounts } from "@/tests/support/accounts";
import { expectApiError, jsonRequest, newConversation, params, setupAppEnv } from "@/tests/support/app-env";

/**
 * Two app instances on one PostgreSQL database, in one process: "here" is the one the routes run
 * on (the process's live runs and cluster), "there" another with live runs, a pool and a link of its
 * own. Heartbeats are called by the test; a missed one is its `seen_at` moved into the past.
 */

const fake = setupFakeOllama();
setupAppEnv(fake);

const HEARTBEAT_MS = 60_000;
const REQUEST_TIMEOUT_MS = 1_000;
let db: Db;
let here: Cluster;
let thereDb: Db;
let thereRuns: LiveRuns;
let there: Cluster;

const url = () => process.env.DATABASE_URL ?? "";

beforeAll(async () => {
  db = await getDb();
  here = await startCluster(db, getLiveRuns(), {
    url: url(),
    id: "here",
    heartbeatMs: HEARTBEAT_MS,
    requestTimeoutMs: REQUEST_TIMEOUT_MS,
  });
  thereDb = await openPostgresDb(url());
  thereRuns = new LiveRuns(0);
  there = await Cluster.start(thereDb, thereRuns, { url: url(), id: "there", heartbeatMs: HEARTBEAT_MS });
});

afterEach(async () => {
  vi.restoreAllMocks();
  for (const live of [...getLiveRuns().active(), ...thereRuns.active()]) live.controller.abort();
  await expect.poll(() => getLiveRuns().size + thereRuns.size).toBe(0);
  await expect
    .poll(() =>
      fake()
        .chatRequests()
        .every((r) => r.finished || r.aborted),
    )
    .toBe(true);
});

afterAll(async () => {
  await there?.stop();
  if (thereDb) await closeDb(thereDb);
  await stopCluster();
});

const query = (text: string, values: unknown[] = []) => postgresPool(db)!.query(text, values);

/** How many of this database's sessions wait for a lock. */
async function lockWaiters(): Promise<number> {
  const { rows } = await query(
    "SELECT count(*)::int AS waiting FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'",
  );
  return rows[0].waiting;
}

/** A run going on "there", its model request hanging until it is stopped. */
async function runningThere() {
  const id = await newConversation();
  fake().script({ when: { hasTools: true }, hang: true });
  const live = await startChat(thereDb, { conversationId: id, ownerId: null, message: "work on it" }, thereRuns);
  await fake().waitForRequests(1);
  return { id, live };
}

const assistantMessages = async (conversationId: string) =>
  (await listMessages(db, { conversationId })).filter((message) => message.role === "assistant");

describe("stop and follow-ups through any instance", () => {
  it("a run records the instance that holds it", async () => {
    const { live } = await runningThere();
    expect((await getRun(db, { id: live.runId })).instanceId).toBe("there");
    expect(await here.runOwnerOf(live.conversationId)).toBe("there");
  });

  it("a stop sent to an instance that does not hold the run reaches its owner", async () => {
    const { id, live } = await runningThere();
    const response = await stop(jsonRequest("", "POST"), params({ id }));
    expect(response.status).toBe(202);
    expect(await response.json()).toEqual({ stopping: true, runId: live.runId });
    await expect.poll(async () => (await getRun(db, { id: live.runId })).status).toBe("stopped");
    expect(getLiveRuns().size).toBe(0);
  });

  it("a follow-up sent to an instance that does not hold the run is queued and stored by its owner", async () => {
    const { id, live } = await runningThere();
    const response = await interrupt(jsonRequest("", "POST", { message: "and the prices 😀" }), params({ id }));
    expect(response.status).toBe(202);
    const accepted = (await response.json()) as { interruptId: string; runId: string };
    expect(accepted).toEqual({ interruptId: expect.any(String), runId: live.runId, pending: 1 });
    expect(live.interrupts.size).toBe(1);
    expect(await listHeldInterrupts(db, { conversationId: id })).toEqual([
      expect.objectContaining({ id: accepted.interruptId, text: "and the prices 😀", unsent: false }),
    ]);
  });

  it("a follow-up its owner stored but answered too late for is accepted (202), not a 503 whose retry would store it twice", async () => {
    const { id, live } = await runningThere();
    let answer = () => {};
    const answered = new Promise<void>((resolve) => {
      answer = resolve;
    });
    const enqueue = live.interrupts.enqueue.bind(live.interrupts);
    vi.spyOn(live.interrupts, "enqueue").mockImplementationOnce(async (...args) => {
      const result = await enqueue(...args);
      await answered;
      return result;
    });
    const response = await interrupt(jsonRequest("", "POST", { message: "and the prices" }), params({ id }));
    answer();
    expect(response.status).toBe(202);
    const accepted = (await response.json()) as { interruptId: string };
    expect(accepted).toEqual({ interruptId: expect.any(String), runId: live.runId, pending: 1 });
    expect(await listHeldInterrupts(db, { conversationId: id })).toEqual([
      expect.objectContaining({ id: accepted.interruptId, text: "and the prices", unsent: false }),
    ]);
  });

  it("nothing running anywhere is a 409, as with one instance", async () => {
    const id = await newConversation();
    await expectApiError(await stop(jsonRequest("", "POST"), params({ id })), 409, "conflict:no_active_run");
    await expectApiError(
      await interrupt(jsonRequest("", "POST", { message: "late" }), params({ id })),
      409,
      "conflict:no_active_run",
    );
  });

  it(`no answer from the owner within INSTANCE_REQUEST_TIMEOUT_S is a retryable 503 with Retry-After`, async () => {
    // An instance still registered whose process no longer answers (hung, or just killed).
    const id = await newConversation();
    await query("INSERT INTO instances (id, started_at, seen_at) VALUES ('silent', 0, $1)", [Date.now()]);
    const question = await insertMessage(db, { conversationId: id, role: "user", content: "q" });
    await createRun(db, {
      conversationId: id,
      questionId: question.id,
      mode: "native",
      model: "m",
      instanceId: "silent",
    });
    try {
      for (const response of [
        await stop(jsonRequest("", "POST"), params({ id })),
        await interrupt(jsonRequest("", "POST", { message: "more" }), params({ id })),
      ]) {
        expect(response.headers.get("Retry-After")).toMatch(/^\d+$/);
        expect(await response.json()).toMatchObject({
          error: { code: "unavailable:instance_unreachable", retryable: true },
        });
        expect(response.status).toBe(503);
      }
      expect(await listHeldInterrupts(db, { conversationId: id })).toEqual([]);
    } finally {
      await query("DELETE FROM instances WHERE id = 'silent'");
      await query("UPDATE runs SET status = 'interrupted' WHERE conversation_id = $1", [id]);
    }
  });
});

describe("another user's conversation whose run goes on another instance", () => {
  const accounts = setupAccounts();

  it("removing an account whose answer runs on another instance is refused (409) and changes nothing", async () => {
    const created = await createConversation(accounts.user.request("/api/conversations", "POST", {}));
    const { conversation } = (await created.json()) as { conversation: { id: string } };
    const { rows } = await query("SELECT user_id FROM conversations WHERE id = $1", [conversation.id]);
    const userId = rows[0].user_id as string;
    fake().script({ when: { hasTools: true }, hang: true });
    const live = await startChat(
      thereDb,
      { conversationId: conversation.id, ownerId: userId, message: "mine" },
      thereRuns,
    );
    await fake().waitForRequests(1);
    await expectApiError(
      await removeUser(accounts.admin.request("", "DELETE"), params({ userId })),
      409,
      "conflict:run_active",
    );
    expect((await query("SELECT id FROM users WHERE id = $1", [userId])).rows).toHaveLength(1);
    expect([live.signal.aborted, (await getRun(db, { id: live.runId })).status]).toEqual([false, "running"]);
  });

  it("a start on another instance once the account's removal began is refused (404) and stores nothing", async () => {
    const user = await createUser(db, {
      username: `leaving-${crypto.randomUUID().slice(0, 8)}`,
      password: "long enough password",
      byAdmin: true,
    });
    const busy = await createConversationRow(db, { ownerId: user.id });
    const other = await createConversationRow(db, { ownerId: user.id });
    fake().script({ when: { hasTools: true }, hang: true });
    const live = await startChat(db, { conversationId: busy.id, ownerId: user.id, message: "mine" });
    await fake().waitForRequests(1);
    // Another connection holds the run's row: the removal waits there while it ends that run.
    const locker = await postgresPool(db)!.connect();
    await locker.query("BEGIN");
    await locker.query("SELECT id FROM runs WHERE id = $1 FOR UPDATE", [live.runId]);
    const removing = removeUser(accounts.admin.request("", "DELETE"), params({ userId: user.id }));
    try {
      await expect.poll(lockWaiters).toBeGreaterThanOrEqual(1);
      await expect(
        startChat(thereDb, { conversationId: other.id, ownerId: user.id, message: "still here?" }, thereRuns),
      ).rejects.toMatchObject({ code: "not_found:account" });
    } finally {
      await locker.query("COMMIT");
      locker.release();
    }
    expect((await removing).status).toBe(204);
    expect(fake().chatRequests()).toHaveLength(1);
    expect(thereRuns.size).toBe(0);
    expect((await query("SELECT id FROM users WHERE id = $1", [user.id])).rows).toEqual([]);
  });

  it("a removal refused while the account's answer runs elsewhere leaves the account able to start answers", async () => {
    const user = await createUser(db, {
      username: `staying-${crypto.randomUUID().slice(0, 8)}`,
      password: "long enough password",
      byAdmin: true,
    });
    const busy = await createConversationRow(db, { ownerId: user.id });
    const later = await createConversationRow(db, { ownerId: user.id });
    fake().script({ when: { hasTools: true }, hang: true });
    const live = await startChat(thereDb, { conversationId: busy.id, ownerId: user.id, message: "mine" }, thereRuns);
    await fake().waitForRequests(1);
    await expectApiError(
      await removeUser(accounts.admin.request("", "DELETE"), params({ userId: user.id })),
      409,
      "conflict:run_active",
    );
    live.controller.abort();
    await expect.poll(() => thereRuns.size).toBe(0);
    fake().script({ when: { hasTools: true }, hang: true });
    const next = await startChat(thereDb, { conversationId: later.id, ownerId: user.id, message: "again" }, thereRuns);
    expect((await getRun(db, { id: next.runId })).status).toBe("running");
  });

  it("is a 404 for its stop, follow-ups and delete, and its run goes on", async () => {
    const created = await createConversation(accounts.admin.request("/api/conversations", "POST", {}));
    const { conversation } = (await created.json()) as { conversation: { id: string } };
    const { rows } = await query("SELECT user_id FROM conversations WHERE id = $1", [conversation.id]);
    const ownerId = rows[0].user_id as string;
    fake().script({ when: { hasTools: true }, hang: true });
    const live = await startChat(thereDb, { conversationId: conversation.id, ownerId, message: "mine" }, thereRuns);
    await fake().waitForRequests(1);
    const id = conversation.id;
    const other = accounts.user;
    await expectApiError(await stop(other.request("", "POST"), params({ id })), 404, "not_found:conversation");
    await expectApiError(
      await interrupt(other.request("", "POST", { message: "let me in" }), params({ id })),
      404,
      "not_found:conversation",
    );
    await expectApiError(
      await deleteConversation(other.request("", "DELETE"), params({ id })),
      404,
      "not_found:conversation",
    );
    expect([live.signal.aborted, live.interrupts.size]).toEqual([false, 0]);
    expect((await getRun(db, { id: live.runId })).status).toBe("running");
  });
});

describe("deleting a conversation while any instance runs it", () => {
  it("a conversation whose run goes on another instance is not deleted: 409", async () => {
    const { id } = await runningThere();
    await expectApiError(
      await deleteConversation(jsonRequest("", "DELETE"), params({ id })),
      409,
      "conflict:run_active",
    );
    expect((await getConversation(db, { id, ownerId: null })).id).toBe(id);
  });

  it("a delete racing a start that is storing its run waits for it and refuses", async () => {
    const id = await newConversation();
    let commit = () => {};
    const committed = new Promise<void>((resolve) => {
      commit = resolve;
    });
    let stored = () => {};
    const runStored = new Promise<void>((resolve) => {
      stored = resolve;
    });
    // Another instance's start, between its run's insert and its commit.
    const start = thereDb.transaction(async (tx) => {
      const question = await insertMessage(tx, { conversationId: id, role: "user", content: "q" });
      await createRun(tx, {
        conversationId: id,
        questionId: question.id,
        mode: "native",
        model: "m",
        instanceId: "there",
      });
      stored();
      await committed;
    });
    await runStored;
    const deleting = deleteConversation(jsonRequest("", "DELETE"), params({ id }));
    await expect
      .poll(async () => {
        const { rows } = await query(
          "SELECT count(*)::int AS waiting FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'",
        );
        return rows[0].waiting;
      })
      .toBe(1);
    commit();
    await start;
    await expectApiError(await deleting, 409, "conflict:run_active");
    expect((await getConversation(db, { id, ownerId: null })).id).toBe(id);
    await query("UPDATE runs SET status = 'interrupted' WHERE conversation_id = $1", [id]);
  });
});

describe("an instance declared dead", () => {
  it("an instance declared dead drops its runs without storing them; the survivor's store stands", async () => {
    const { id, live } = await runningThere();
    await query("UPDATE instances SET seen_at = seen_at - $1::bigint WHERE id = 'there'", [
      (MISSED_HEARTBEATS + 1) * HEARTBEAT_MS,
    ]);
    await here.heartbeat();
    expect((await getRun(db, { id: live.runId })).status).toBe("interrupted");
    const warned = vi.spyOn(console, "warn").mockImplementation(() => {});
    const released = vi.spyOn(thereRuns, "remove");

    await there.heartbeat();
    expect(warned).toHaveBeenCalledWith(expect.stringContaining("declared dead"));
    expect([live.signal.aborted, live.isEnded, thereRuns.size]).toEqual([true, true, 0]);
    // The dropped run's task has ended too (it gives its slot back once more, after it would have stored its end).
    await expect.poll(() => released.mock.calls.length).toBeGreaterThanOrEqual(2);
    expect((await getRun(db, { id: live.runId })).status).toBe("interrupted");
    expect(await assistantMessages(id)).toEqual([
      expect.objectContaining({ runId: live.runId, status: "interrupted" }),
    ]);
    const { rows } = await query("SELECT id FROM instances WHERE id = 'there'");
    expect(rows).toEqual([{ id: "there" }]);
  });
});
