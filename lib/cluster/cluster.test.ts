import { afterEach, describe, expect, it, vi } from "vitest";
import { LiveRun, LiveRuns } from "@/lib/chat/live-run";
import { closeDb, type Db, openPostgresDb } from "@/lib/db/client";
import { listHeldInterrupts, storeInterrupt } from "@/lib/db/interrupts";
import { listMessages } from "@/lib/db/messages";
import { postgresPool } from "@/lib/db/postgres";
import { finishRun, getRun, savePartialAnswer } from "@/lib/db/runs";
import type { Run } from "@/lib/db/schema";
import { resetConfigForTests } from "@/lib/env-config";
import { storedRunningRun } from "@/tests/support/seed-conversation";
import { Cluster } from "./cluster";
import { InstanceRegistry, MISSED_HEARTBEATS } from "./instance-registry";

/**
 * App instances sharing this test file's PostgreSQL database (the postgres test project's
 * DATABASE_URL), each with its own pool, live runs and link, in one process. Heartbeats are called
 * by the test (the timer's period is far longer than a test); a missed heartbeat is its `seen_at`
 * moved into the past.
 */

const HEARTBEAT_MS = 60_000;
const url = () => {
  const value = process.env.DATABASE_URL;
  if (!value) throw new Error("The cluster tests run in the postgres project.");
  return value;
};

const opened: { db: Db; cluster?: Cluster }[] = [];

afterEach(async () => {
  vi.restoreAllMocks();
  for (const instance of opened.splice(0)) {
    await instance.cluster?.stop();
    await closeDb(instance.db);
  }
});

/** Starts an app instance as the server does: its store opened (start recovery), then its place in the cluster. */
async function startInstance(id: string, { requestTimeoutMs }: { requestTimeoutMs?: number } = {}) {
  const db = await openPostgresDb(url());
  const instance: { db: Db; cluster?: Cluster } = { db };
  opened.push(instance);
  const liveRuns = new LiveRuns(0);
  instance.cluster = await Cluster.start(db, liveRuns, {
    url: url(),
    id,
    heartbeatMs: HEARTBEAT_MS,
    requestTimeoutMs,
  });
  return { db, liveRuns, cluster: instance.cluster };
}

async function rawQuery(db: Db, text: string, values: unknown[] = []) {
  return postgresPool(db)!.query(text, values);
}

async function silentFor(db: Db, id: string, beats: number) {
  await rawQuery(db, "UPDATE instances SET seen_at = seen_at - $2::bigint WHERE id = $1", [id, beats * HEARTBEAT_MS]);
}

/** Whether the instance's last beat is less than half a heartbeat old. */
async function seenRecently(db: Db, id: string): Promise<boolean> {
  const { rows } = await rawQuery(
    db,
    "SELECT seen_at > (extract(epoch from clock_timestamp()) * 1000)::bigint - $2 AS recent FROM instances WHERE id = $1",
    [id, HEARTBEAT_MS / 2],
  );
  return rows[0]?.recent === true;
}

/** A run of `instanceId` in a new conversation, with a partial answer and a follow-up it has not taken yet. */
async function runningRunOf(db: Db, instanceId: string) {
  const { conversation, run } = await storedRunningRun(db, { instanceId });
  await savePartialAnswer(db, { runId: run.id, text: "half an answer ½" });
  await storeInterrupt(db, {
    interrupt: { id: crypto.randomUUID(), text: "and the prices" },
    conversationId: conversation.id,
    runId: run.id,
  });
  return run;
}

/** The instance's live run holding a stored run, as a chat's start leaves it. */
async function liveRunOf(instance: { liveRuns: LiveRuns }, run: Run): Promise<LiveRun> {
  const live = new LiveRun({
    runId: run.id,
    conversationId: run.conversationId,
    persist: async () => {},
    interruptLimits: { maxCount: 20, maxBytes: 65_536 },
  });
  expect(instance.liveRuns.reserve(live, { perUser: 10, total: 10 })).toBeNull();
  live.markStarted(run);
  return live;
}

const endOf = (live: LiveRun) => ({ runId: live.runId, iterations: 1, inputTokens: 1, outputTokens: 1 });

describe("app instances sharing PostgreSQL", () => {
  it("a run of another instance survives this instance's start", async () => {
    const a = await startInstance("a");
    const run = await runningRunOf(a.db, "a");
    const b = await startInstance("b");
    expect((await getRun(b.db, { id: run.id })).status).toBe("running");
    await b.cluster.heartbeat();
    expect((await getRun(b.db, { id: run.id })).status).toBe("running");
    expect(await b.cluster.runOwnerOf(run.conversationId)).toBe("a");
  });

  it(`a run of an instance silent for ${MISSED_HEARTBEATS} heartbeats is stored interrupted by a survivor's sweep, exactly once`, async () => {
    const a = await startInstance("a");
    const run = await runningRunOf(a.db, "a");
    const b = await startInstance("b");
    const c = await startInstance("c");
    await silentFor(b.db, "a", MISSED_HEARTBEATS - 0.5);
    await b.cluster.heartbeat();
    expect((await getRun(b.db, { id: run.id })).status).toBe("running");

    await silentFor(b.db, "a", 1);
    // Three survivors sweeping at once (one instance's heartbeats take turns).
    const d = await startInstance("d");
    await Promise.all([b.cluster.heartbeat(), c.cluster.heartbeat(), d.cluster.heartbeat()]);
    expect((await getRun(b.db, { id: run.id })).status).toBe("interrupted");
    const answers = (await listMessages(b.db, { conversationId: run.conversationId })).filter(
      (message) => message.role === "assistant",
    );
    expect(answers).toEqual([
      expect.objectContaining({ content: "half an answer ½", status: "interrupted", runId: run.id }),
    ]);
    expect(await listHeldInterrupts(b.db, { conversationId: run.conversationId })).toEqual([
      expect.objectContaining({ text: "and the prices", unsent: true }),
    ]);
    expect(await b.cluster.runOwnerOf(run.conversationId)).toBeNull();
  });

  it("an instance declared dead keeps the survivor's end of its runs, and stores interrupted a run it started after the sweep", async () => {
    const a = await startInstance("a");
    const b = await startInstance("b");
    const before = await liveRunOf(a, await runningRunOf(a.db, "a"));
    await silentFor(b.db, "a", MISSED_HEARTBEATS + 1);
    await b.cluster.heartbeat();
    expect((await getRun(b.db, { id: before.runId })).status).toBe("interrupted");

    // Before its next heartbeat, the instance ends the run the survivor stored, and starts another.
    expect(await finishRun(a.db, { ...endOf(before), status: "complete", answer: "the whole answer" })).toBeUndefined();
    const after = await liveRunOf(a, await runningRunOf(a.db, "a"));
    await a.cluster.heartbeat();

    expect(a.liveRuns.size).toBe(0);
    expect((await getRun(a.db, { id: before.runId })).status).toBe("interrupted");
    expect((await getRun(a.db, { id: after.runId })).status).toBe("interrupted");
    for (const live of [before, after]) {
      const answers = (await listMessages(a.db, { conversationId: live.conversationId })).filter(
        (message) => message.role === "assistant",
      );
      expect(answers).toEqual([expect.objectContaining({ content: "half an answer ½", status: "interrupted" })]);
    }
  });

  it("a run owned by no instance (an earlier release's) is recovered at a start", async () => {
    const a = await startInstance("a");
    const run = await runningRunOf(a.db, "a");
    await rawQuery(a.db, "UPDATE runs SET instance_id = NULL WHERE id = $1", [run.id]);
    await startInstance("b");
    expect((await getRun(a.db, { id: run.id })).status).toBe("interrupted");
  });

  it("a heartbeat that fails is logged and the next one tries again; nothing is thrown", async () => {
    const a = await startInstance("a");
    const logged = vi.spyOn(console, "error").mockImplementation(() => {});
    vi.spyOn(InstanceRegistry.prototype, "beat").mockRejectedValueOnce(new Error("connection lost"));
    await expect(a.cluster.heartbeat()).resolves.toBeUndefined();
    expect(logged).toHaveBeenCalledWith(expect.stringContaining("heartbeat failed"), expect.any(Error));
    await silentFor(a.db, "a", 1);
    await a.cluster.heartbeat();
    expect(await seenRecently(a.db, "a")).toBe(true);
  });

  it("a slow sweep does not hold the next heartbeat's beat back", async () => {
    const a = await startInstance("a");
    let release = () => {};
    const held = new Promise<string[]>((resolve) => {
      release = () => resolve([]);
    });
    vi.spyOn(InstanceRegistry.prototype, "orphanedRuns").mockReturnValueOnce(held);
    const slow = a.cluster.heartbeat();
    await silentFor(a.db, "a", MISSED_HEARTBEATS - 0.5);
    const next = a.cluster.heartbeat();
    try {
      await expect.poll(() => seenRecently(a.db, "a")).toBe(true);
    } finally {
      release();
      await Promise.all([slow, next]);
    }
  });

  it("an instance that shuts down cleanly leaves the registry and stops answering requests", async () => {
    const a = await startInstance("a");
    const b = await startInstance("b", { requestTimeoutMs: 300 });
    await a.cluster.stop();
    const { rows } = await rawQuery(b.db, "SELECT id FROM instances ORDER BY id");
    expect(rows.map((row) => row.id)).toEqual(["b"]);
    await expect(b.cluster.link.request("a", { kind: "stop", conversationId: "c" })).rejects.toMatchObject({
      code: "unavailable:instance_unreachable",
      status: 503,
    });
  });

  it("without CLUSTER_SECRET an instance runs alone: it refuses to start while another instance is alive", async () => {
    const secret = process.env.CLUSTER_SECRET;
    delete process.env.CLUSTER_SECRET;
    resetConfigForTests();
    try {
      const warned = vi.spyOn(console, "warn").mockImplementation(() => {});
      const alone = await startInstance("alone");
      expect(warned).toHaveBeenCalledWith(expect.stringContaining("CLUSTER_SECRET is unset"));
      await expect(startInstance("second")).rejects.toThrow(
        /CLUSTER_SECRET is unset, but another app instance \(alone\) uses this database/,
      );
      const { rows } = await rawQuery(alone.db, "SELECT id FROM instances ORDER BY id");
      expect(rows.map((row) => row.id)).toEqual(["alone"]);
      // One that crashed stops counting once it missed its heartbeats.
      await silentFor(alone.db, "alone", MISSED_HEARTBEATS + 1);
      expect((await startInstance("after_crash")).cluster.id).toBe("after_crash");
    } finally {
      process.env.CLUSTER_SECRET = secret;
      resetConfigForTests();
    }
  });
});
