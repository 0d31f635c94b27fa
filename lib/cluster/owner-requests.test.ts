import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { LiveRun, LiveRuns } from "@/lib/chat/live-run";
import type { Db } from "@/lib/db/client";
import { createConversation } from "@/lib/db/conversations";
import { listHeldInterrupts } from "@/lib/db/interrupts";
import { freshPostgresDatabase } from "@/tests/support/postgres-database";
import { tempDb } from "@/tests/support/temp-db";
import type { ThrowawayDatabase } from "@/tests/support/throwaway-postgres";
import { InstanceLink } from "./instance-link";
import { ownerRequestHandler } from "./owner-requests";

/**
 * Two app instances in one test process: each with its own live runs and its own link (its own
 * PostgreSQL connection and instance id); the store is shared, as instances share PostgreSQL.
 */

let postgres: ThrowawayDatabase;
let store: Awaited<ReturnType<typeof tempDb>>;
let db: Db;
const links: InstanceLink[] = [];

beforeAll(async () => {
  postgres = await freshPostgresDatabase("owner_requests");
});

beforeEach(async () => {
  store = await tempDb();
  db = store.db;
});

afterEach(async () => {
  await Promise.all(links.splice(0).map((link) => link.close()));
  store.cleanup();
});

afterAll(async () => {
  await postgres?.drop();
});

async function appInstance(id: string) {
  const liveRuns = new LiveRuns(0);
  const link = await InstanceLink.open({
    url: postgres.url,
    instanceId: id,
    handle: ownerRequestHandler(db, liveRuns),
    timeoutMs: 5_000,
  });
  links.push(link);
  return { liveRuns, link };
}

/** A run going on `owner` in a new conversation. */
async function runningOn(owner: { liveRuns: LiveRuns }, limits = { maxCount: 2, maxBytes: 1000 }) {
  const conversation = await createConversation(db, { ownerId: null });
  const runId = crypto.randomUUID();
  const live = new LiveRun({
    runId,
    conversationId: conversation.id,
    persist: async () => {},
    interruptLimits: limits,
  });
  expect(owner.liveRuns.reserve(live, { perUser: 5, total: 5 })).toBeNull();
  live.markStarted({ id: runId, conversationId: conversation.id, questionId: null, startedAt: Date.now() });
  return live;
}

describe("stop and follow-ups reach the instance that runs the answer", () => {
  it("a stop sent through another instance stops the owner's run and answers with its run id", async () => {
    const owner = await appInstance("owner");
    const other = await appInstance("other");
    const live = await runningOn(owner);
    expect(await other.link.request("owner", { kind: "stop", conversationId: live.conversationId })).toEqual({
      runId: live.runId,
    });
    expect(live.signal.aborted).toBe(true);
    // The instance the stop came through runs nothing of it.
    expect(other.liveRuns.size).toBe(0);
  });

  it("a follow-up sent through another instance is queued and stored by the owner before it answers", async () => {
    const owner = await appInstance("owner");
    const other = await appInstance("other");
    const live = await runningOn(owner);
    const interruptId = crypto.randomUUID();
    const accepted = await other.link.request("owner", {
      kind: "interrupt",
      conversationId: live.conversationId,
      message: "and the prices too 😀",
      interruptId,
    });
    // Under the id the sender chose, so a verdict that comes too late can be checked in the database.
    expect(accepted).toEqual({ interruptId, runId: live.runId, pending: 1 });
    expect(live.interrupts.drain().map((interrupt) => interrupt.text)).toEqual(["and the prices too 😀"]);
    await expect
      .poll(() => listHeldInterrupts(db, { conversationId: live.conversationId }))
      .toEqual([expect.objectContaining({ id: (accepted as { interruptId: string }).interruptId, runId: live.runId })]);
  });

  it("a tool approval sent through another instance reaches the owner's waiting call, with who decided", async () => {
    const owner = await appInstance("owner");
    const other = await appInstance("other");
    const live = await runningOn(owner);
    const waiting = live.approvals.wait("approval-1", "files__write_file", { signal: live.signal, timeoutMs: 60_000 });
    const decision = { kind: "approval", conversationId: live.conversationId, approvalId: "approval-1" } as const;
    expect(await other.link.request("owner", { ...decision, decision: "once", decidedBy: "user-7" })).toEqual({
      approvalId: "approval-1",
      runId: live.runId,
      decision: "once",
    });
    expect(await waiting).toEqual({ decision: "once", decidedBy: "user-7" });
    // Decided: a second decision finds nothing waiting, and the owner says so.
    await expect(
      other.link.request("owner", { ...decision, decision: "deny", decidedBy: "user-7" }),
    ).rejects.toMatchObject({ code: "conflict:no_pending_approval", status: 409 });
  });

  it("the owner's refusals reach the sender: nothing running is a 409, past the run's follow-ups a 429", async () => {
    const owner = await appInstance("owner");
    const other = await appInstance("other");
    const live = await runningOn(owner, { maxCount: 1, maxBytes: 1000 });
    const send = (message: string) =>
      other.link.request("owner", {
        kind: "interrupt",
        conversationId: live.conversationId,
        message,
        interruptId: crypto.randomUUID(),
      });
    await send("first");
    await expect(send("second")).rejects.toMatchObject({ code: "rate_limited:interrupts", status: 429 });
    await expect(
      other.link.request("owner", { kind: "stop", conversationId: crypto.randomUUID() }),
    ).rejects.toMatchObject({ code: "conflict:no_active_run", status: 409 });
  });

  it("a malformed request from another instance is refused without touching the run", async () => {
    const owner = await appInstance("owner");
    const other = await appInstance("other");
    const live = await runningOn(owner);
    await expect(
      other.link.request("owner", {
        kind: "interrupt",
        conversationId: live.conversationId,
        message: "",
        interruptId: crypto.randomUUID(),
      }),
    ).rejects.toMatchObject({ status: 500 });
    await expect(other.link.request("owner", { kind: "delete everything" })).rejects.toMatchObject({ status: 500 });
    expect([live.signal.aborted, live.interrupts.size]).toEqual([false, 0]);
  });

  it("a stop for an owner that is gone is a retryable 503, not a success", async () => {
    const other = await appInstance("other");
    const quick = await InstanceLink.open({
      url: postgres.url,
      instanceId: "quick",
      handle: async () => null,
      timeoutMs: 200,
    });
    links.push(quick);
    await expect(quick.request("gone", { kind: "stop", conversationId: "c" })).rejects.toMatchObject({
      code: "unavailable:instance_unreachable",
      status: 503,
      retryable: true,
    });
    expect(other.liveRuns.size).toBe(0);
  });
});
