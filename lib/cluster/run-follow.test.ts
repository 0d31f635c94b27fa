import path from "node:path";
import { drizzle } from "drizzle-orm/node-postgres";
import { migrate } from "drizzle-orm/node-postgres/migrator";
import pg from "pg";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { LiveRun, LiveRuns } from "@/lib/chat/live-run";
import type { SentRunEvent } from "@/lib/protocol/run-events";
import { freshPostgresDatabase } from "@/tests/support/postgres-database";
import type { ThrowawayDatabase } from "@/tests/support/throwaway-postgres";
import { InstanceLink, type LinkService } from "./instance-link";
import { InstanceRegistry, instanceChannel } from "./instance-registry";
import { NotifyChannel } from "./notify-channel";
import { passed, RunFollows } from "./run-follow";

/**
 * Two app instances in one test process, each with its own live runs, link (its own PostgreSQL
 * connection) and registry row: a run held by "a" followed through "b".
 */

let database: ThrowawayDatabase;
let pool: pg.Pool;
const cleanups: (() => Promise<void> | void)[] = [];

beforeAll(async () => {
  database = await freshPostgresDatabase("run_follow");
  pool = new pg.Pool({ connectionString: database.url, max: 4 });
  await migrate(drizzle(pool), { migrationsFolder: path.join(process.cwd(), "drizzle-pg") });
});

afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  await pool.query("DELETE FROM instances");
});

afterAll(async () => {
  await pool?.end();
  await database?.drop();
});

const nothing = async () => null;

async function appInstance(
  id: string,
  {
    timeoutMs = 5_000,
    reconnectDelayMs = 250,
    maxPerUser = 100,
    maxPerRun = 100,
    maxMessageBytes = 16 * 1024 * 1024,
  } = {},
) {
  const liveRuns = new LiveRuns(0);
  // The application name lets a test find this instance's listening connection.
  const url = `${database.url}?application_name=instance_${id}`;
  const link = await InstanceLink.open({ url, instanceId: id, handle: nothing, timeoutMs, reconnectDelayMs });
  const registry = new InstanceRegistry(pool, { id });
  await registry.register();
  const follows = new RunFollows({ link, liveRuns, registry, checkMs: 50, maxPerUser, maxPerRun, maxMessageBytes });
  cleanups.push(
    () => link.close(),
    () => follows.close(),
  );
  return { id, liveRuns, link, registry, follows };
}

/** The instance stops without a word: no more messages, and the survivors' sweep removes its row. */
async function dies(instance: Awaited<ReturnType<typeof appInstance>>) {
  instance.follows.close();
  await instance.link.close();
  await instance.registry.deregister();
}

function runningOn(owner: { liveRuns: LiveRuns }) {
  const runId = crypto.randomUUID();
  const live = new LiveRun({
    runId,
    conversationId: crypto.randomUUID(),
    persist: async () => {},
    interruptLimits: { maxCount: 2, maxBytes: 1000 },
  });
  expect(owner.liveRuns.reserve(live, { perUser: 5, total: 5 })).toBeNull();
  live.markStarted({ id: runId, conversationId: live.conversationId, questionId: null, startedAt: 1 });
  live.emit("run", { runId, conversationId: live.conversationId, userMessageId: "q1", model: "m", mode: "native" });
  return live;
}

/** What a client's SSE stream receives, and whether it was closed. */
function client() {
  const events: SentRunEvent[] = [];
  let closed = false;
  const notHeld: string[] = [];
  return {
    events,
    notHeld,
    get closed() {
      return closed;
    },
    ids: () => events.map((event) => event.id),
    sink: {
      send: (event: SentRunEvent) => events.push(event),
      close: () => {
        closed = true;
      },
      notHeld: (position: string) => notHeld.push(position),
    },
  };
}

/** The owner's own subscriber: what a client of the owner receives. */
function ownSubscriber(live: LiveRun, after = "0") {
  const own = client();
  live.subscribe(own.sink.send, own.sink.close, after);
  return own;
}

function toolCall(live: LiveRun, iteration: number) {
  live.emitStep({ type: "tool_call", iteration, callId: `c${iteration}`, tool: "scrape_url", args: {} }, 1);
}

function toolResult(live: LiveRun, iteration: number, observation: string) {
  live.emitStep(
    {
      type: "tool_result",
      iteration,
      callId: `c${iteration}`,
      tool: "scrape_url",
      ok: true,
      observation,
      durationMs: 3,
    },
    2,
  );
}

function answer(live: LiveRun, parts: string[]) {
  live.emit("answer", { status: "start" });
  for (const content of parts) live.emit("answer", { status: "delta", content }, { store: false });
  live.emit("answer", { status: "done" });
}

function finish(live: LiveRun) {
  live.emit("done", {
    messageId: live.messageId,
    iterations: 1,
    usage: { inputTokens: 1, outputTokens: 1, totalTokens: 2 },
    elapsedMs: 5,
  });
  live.end();
}

const settle = { timeout: 10_000 };

describe("following a run through an instance that does not hold it", () => {
  it("a client following through another instance gets exactly the owner's events, deltas and a step over 8000 bytes included, to done", async () => {
    const a = await appInstance("a");
    const b = await appInstance("b");
    const live = runningOn(a);
    toolCall(live, 1);
    const own = ownSubscriber(live);
    const follower = client();
    b.follows.follow({ runId: live.runId, owner: "a", after: "0" }, follower.sink);
    await expect.poll(() => follower.events.length, settle).toBe(2);

    toolResult(live, 1, `page: ${"ü".repeat(9_000)} 😀`);
    answer(live, ["The ", "answer ", "streams."]);
    finish(live);
    await expect.poll(() => follower.closed, settle).toBe(true);
    expect(follower.events).toEqual(own.events);
    expect(follower.ids()).toEqual(["1", "2", "3", "4", "4.1", "4.2", "4.3", "5", "6"]);
    expect(follower.events.at(-1)?.event).toBe("done");
  });

  it("a client resuming from `after` mid-run gets what follows that event, none twice", async () => {
    const a = await appInstance("a");
    const b = await appInstance("b");
    const live = runningOn(a);
    answer(live, ["one ", "two ", "three"]);
    const follower = client();
    b.follows.follow({ runId: live.runId, owner: "a", after: "2.2" }, follower.sink);
    await expect.poll(() => follower.ids(), settle).toEqual(["2.3", "3"]);
    finish(live);
    await expect.poll(() => follower.closed, settle).toBe(true);
    expect(follower.events).toEqual(ownSubscriber(live, "2.2").events);
  });

  it("after the follower's channel reconnects it follows again from its last event: what was lost meanwhile arrives, nothing twice", async () => {
    const a = await appInstance("a");
    const b = await appInstance("b", { reconnectDelayMs: 1_000 });
    const live = runningOn(a);
    const follower = client();
    b.follows.follow({ runId: live.runId, owner: "a", after: "0" }, follower.sink);
    await expect.poll(() => follower.ids(), settle).toEqual(["1"]);

    await pool.query("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'instance_b'");
    await expect
      .poll(
        async () => (await pool.query("SELECT 1 FROM pg_stat_activity WHERE application_name = 'instance_b'")).rowCount,
      )
      .toBe(0);
    // Sent while nobody listens on b's channel: lost.
    toolCall(live, 1);
    answer(live, ["lost ", "meanwhile"]);
    await expect.poll(() => follower.ids(), settle).toEqual(["1", "2", "3", "3.1", "3.2", "4"]);
    finish(live);
    await expect.poll(() => follower.closed, settle).toBe(true);
    expect(follower.events).toEqual(ownSubscriber(live).events);
  });

  it("a send the owner could not make ends the follow once the owner's channel listens again: the follower's stream always closes", async () => {
    const a = await appInstance("a", { reconnectDelayMs: 1_000 });
    const b = await appInstance("b");
    const live = runningOn(a);
    const follower = client();
    b.follows.follow({ runId: live.runId, owner: "a", after: "0" }, follower.sink);
    await expect.poll(() => follower.ids(), settle).toEqual(["1"]);

    await pool.query("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'instance_a'");
    await expect
      .poll(
        async () => (await pool.query("SELECT 1 FROM pg_stat_activity WHERE application_name = 'instance_a'")).rowCount,
      )
      .toBe(0);
    // Sent while the owner's own channel is down: the run's last events and its end are lost.
    answer(live, ["lost ", "on the owner's side"]);
    finish(live);
    await expect.poll(() => follower.closed, settle).toBe(true);
    expect(follower.ids()).toEqual(["1"]);
    await expect.poll(() => a.follows.forwardingCount, settle).toBe(0);
  });

  it("a follow's reply goes out before its backlog, and a long answer's backlog is one message", async () => {
    const a = await appInstance("a");
    const b = await appInstance("b");
    const live = runningOn(a);
    live.emit("answer", { status: "start" });
    for (let index = 0; index < 500; index++)
      live.emit("answer", { status: "delta", content: `word${index} ` }, { store: false });
    const own = ownSubscriber(live);
    const toFollower: string[] = [];
    const send = NotifyChannel.prototype.send;
    const spy = vi.spyOn(NotifyChannel.prototype, "send").mockImplementation(function (
      this: NotifyChannel,
      channel: string,
      message: unknown,
    ) {
      const wire = message as { t: string; body?: { kind?: string } };
      if (channel === instanceChannel("b")) toFollower.push(wire.t === "reply" ? "reply" : String(wire.body?.kind));
      return send.call(this, channel, message);
    });
    try {
      const follower = client();
      b.follows.follow({ runId: live.runId, owner: "a", after: "0" }, follower.sink);
      await expect.poll(() => follower.events.length, settle).toBe(own.events.length);
      expect(follower.events).toEqual(own.events);
    } finally {
      spy.mockRestore();
    }
    expect(toFollower).toEqual(["reply", "events"]);
  });

  it("a backlog longer than half of CLUSTER_MAX_MESSAGE_MB goes in several messages and arrives whole, in order", async () => {
    const a = await appInstance("a", { maxMessageBytes: 8_000 });
    const b = await appInstance("b");
    const live = runningOn(a);
    live.emit("answer", { status: "start" });
    for (let index = 0; index < 500; index++)
      live.emit("answer", { status: "delta", content: `word${index} ` }, { store: false });
    const own = ownSubscriber(live);
    const send = vi.spyOn(a.link, "send");
    const follower = client();
    b.follows.follow({ runId: live.runId, owner: "a", after: "0" }, follower.sink);
    await expect.poll(() => follower.events.length, settle).toBe(own.events.length);
    expect(follower.events).toEqual(own.events);
    const parts = send.mock.calls.map(([, body]) => body as { kind: string; events: SentRunEvent[] });
    expect(parts.length).toBeGreaterThan(5);
    for (const part of parts) expect(Buffer.byteLength(JSON.stringify(part.events))).toBeLessThanOrEqual(4_000 + 100);
  });

  it("a client leaving stops the owner's forwarding: the run's subscribers are its own again", async () => {
    const a = await appInstance("a");
    const b = await appInstance("b");
    const live = runningOn(a);
    ownSubscriber(live);
    const follower = client();
    const leave = b.follows.follow({ runId: live.runId, owner: "a", after: "0" }, follower.sink);
    await expect.poll(() => live.subscriberCount, settle).toBe(2);
    leave();
    await expect.poll(() => live.subscriberCount, settle).toBe(1);
    expect(a.follows.forwardingCount).toBe(0);
  });

  it("the follower's instance gone stops the owner's forwarding", async () => {
    const a = await appInstance("a");
    const b = await appInstance("b");
    const live = runningOn(a);
    b.follows.follow({ runId: live.runId, owner: "a", after: "0" }, client().sink);
    await expect.poll(() => live.subscriberCount, settle).toBe(1);
    await dies(b);
    await expect.poll(() => live.subscriberCount, settle).toBe(0);
    expect(a.follows.forwardingCount).toBe(0);
  });

  it("the owner dying mid-follow closes the follower's stream, so the client reconnects", async () => {
    const a = await appInstance("a");
    const b = await appInstance("b");
    const live = runningOn(a);
    const follower = client();
    b.follows.follow({ runId: live.runId, owner: "a", after: "0" }, follower.sink);
    await expect.poll(() => follower.ids(), settle).toEqual(["1"]);
    await dies(a);
    await expect.poll(() => follower.closed, settle).toBe(true);
    expect(follower.ids()).toEqual(["1"]);
  });

  it("an owner that does not answer the follow closes the stream", async () => {
    const b = await appInstance("b", { timeoutMs: 200 });
    await new InstanceRegistry(pool, { id: "silent" }).register();
    const follower = client();
    b.follows.follow({ runId: "r1", owner: "silent", after: "0" }, follower.sink);
    await expect.poll(() => follower.closed, settle).toBe(true);
    expect([follower.events, follower.notHeld]).toEqual([[], []]);
  });

  it("a run the owner no longer holds goes on from the database after the client's position", async () => {
    await appInstance("a");
    const b = await appInstance("b");
    const follower = client();
    b.follows.follow({ runId: "not-there", owner: "a", after: "7.2" }, follower.sink);
    await expect.poll(() => follower.notHeld, settle).toEqual(["7.2"]);
    expect(follower.events).toEqual([]);
  });
});

describe("the follower passes events on in order", () => {
  /** An owner that answers every follow and sends whatever events the test gives it. */
  async function scriptedOwner() {
    const link = await InstanceLink.open({ url: database.url, instanceId: "scripted", handle: nothing });
    cleanups.push(() => link.close());
    await new InstanceRegistry(pool, { id: "scripted" }).register();
    const follows: { followId: string; follower: string }[] = [];
    link.attach({
      answer: (body) => {
        follows.push(body as { followId: string; follower: string });
        return Promise.resolve({ value: { held: true } });
      },
    } satisfies LinkService);
    return {
      follows,
      /** Sends the events `ids` one message each, the first said to come after `prev`. */
      send: async (prev: string, ...ids: string[]) => {
        const follow = follows.at(-1);
        if (!follow) throw new Error("nobody follows");
        for (const id of ids) {
          await link.send(follow.follower, {
            kind: "events",
            followId: follow.followId,
            prev,
            events: [{ event: "answer", id, data: { status: "delta", content: id } }],
          });
          prev = id;
        }
      },
    };
  }

  it("an event already passed on is dropped; one after a gap closes the stream so the client resumes from its last event", async () => {
    const owner = await scriptedOwner();
    const b = await appInstance("b");
    const follower = client();
    b.follows.follow({ runId: "r1", owner: "scripted", after: "0" }, follower.sink);
    await expect.poll(() => owner.follows.length, settle).toBe(1);
    await owner.send("0", "1", "1.1");
    // Replayed again by a re-follow from 1, and again from 1.2: what was passed on is dropped.
    await owner.send("1", "1.1", "1.2", "2");
    await owner.send("1.2", "2");
    // 3 is lost.
    await owner.send("3", "4", "5");
    await expect.poll(() => follower.closed, settle).toBe(true);
    expect(follower.ids()).toEqual(["1", "1.1", "1.2", "2"]);
  });

  it("an event whose previous event is not the last one passed on closes the stream: deltas lost on the owner's side are never skipped", async () => {
    const owner = await scriptedOwner();
    const b = await appInstance("b");
    const follower = client();
    b.follows.follow({ runId: "r1", owner: "scripted", after: "0" }, follower.sink);
    await expect.poll(() => owner.follows.length, settle).toBe(1);
    await owner.send("0", "1", "1.1");
    // 1.2 was lost on the owner's side: the next stored event says it comes after 1.2.
    await owner.send("1.2", "2");
    await expect.poll(() => follower.closed, settle).toBe(true);
    expect(follower.ids()).toEqual(["1", "1.1"]);
  });

  it("the first event must come right after the client's position, unless the owner replays the run from its start", async () => {
    const owner = await scriptedOwner();
    const b = await appInstance("b");
    const afterLoss = client();
    b.follows.follow({ runId: "r1", owner: "scripted", after: "2" }, afterLoss.sink);
    await expect.poll(() => owner.follows.length, settle).toBe(1);
    await owner.send("3", "4");
    await expect.poll(() => afterLoss.closed, settle).toBe(true);
    expect(afterLoss.events).toEqual([]);

    const unknownPosition = client();
    b.follows.follow({ runId: "r2", owner: "scripted", after: "999" }, unknownPosition.sink);
    await expect.poll(() => owner.follows.length, settle).toBe(2);
    await owner.send("0", "1", "2");
    await expect.poll(() => unknownPosition.ids(), settle).toEqual(["1", "2"]);
  });

  it("an event at or before the last one passed on was passed on already", () => {
    expect(["3", "2.9", "2", "3.1", "4", "10"].map((id) => passed("3", id))).toEqual([
      true,
      true,
      true,
      false,
      false,
      false,
    ]);
    expect(["2.3", "2.2", "2", "2.4", "2.10", "3"].map((id) => passed("2.3", id))).toEqual([
      true,
      true,
      true,
      false,
      false,
      false,
    ]);
  });
});

describe("follows through an instance are shared and capped", () => {
  /** The events messages `instance` sent, of every follow. */
  function sentEvents(instance: { link: InstanceLink }) {
    const send = vi.spyOn(instance.link, "send");
    return () => send.mock.calls.filter(([, body]) => (body as { kind?: string }).kind === "events").length;
  }

  it("a second client of a run on the same follower instance shares its follow: the owner sends the backlog once", async () => {
    const a = await appInstance("a");
    const b = await appInstance("b");
    const live = runningOn(a);
    toolCall(live, 1);
    answer(live, ["one ", "two"]);
    const own = ownSubscriber(live);
    const sent = sentEvents(a);
    const first = client();
    b.follows.follow({ runId: live.runId, owner: "a", after: "0" }, first.sink);
    await expect.poll(() => first.ids(), settle).toEqual(own.ids());
    const backlogs = sent();
    const second = client();
    b.follows.follow({ runId: live.runId, owner: "a", after: "0" }, second.sink);
    const resumed = client();
    b.follows.follow({ runId: live.runId, owner: "a", after: own.ids()[2] ?? "" }, resumed.sink);
    expect(second.ids()).toEqual(own.ids());
    expect(resumed.ids()).toEqual(own.ids().slice(3));
    expect([a.follows.forwardingCount, b.follows.followingCount, sent()]).toEqual([1, 3, backlogs]);

    finish(live);
    await expect.poll(() => [first.closed, second.closed, resumed.closed], settle).toEqual([true, true, true]);
    expect(second.ids()).toEqual(own.ids());
    expect(resumed.ids()).toEqual(own.ids().slice(3));
    expect(sent()).toBe(backlogs + 1);
  });

  it("a client that needs events from before the shared follow's start has it followed again; the others get nothing twice", async () => {
    const a = await appInstance("a");
    const b = await appInstance("b");
    const live = runningOn(a);
    answer(live, ["one ", "two"]);
    const own = ownSubscriber(live);
    const late = client();
    b.follows.follow({ runId: live.runId, owner: "a", after: own.ids()[2] ?? "" }, late.sink);
    await expect.poll(() => late.ids(), settle).toEqual(own.ids().slice(3));
    const early = client();
    b.follows.follow({ runId: live.runId, owner: "a", after: "0" }, early.sink);
    await expect.poll(() => early.ids(), settle).toEqual(own.ids());
    toolCall(live, 2);
    finish(live);
    await expect.poll(() => [late.closed, early.closed], settle).toEqual([true, true]);
    expect(late.ids()).toEqual(own.ids().slice(3));
    expect(early.ids()).toEqual(own.ids());
    expect(a.follows.forwardingCount).toBe(0);
  });

  it("the last client leaving ends the shared follow; one leaving before it does not", async () => {
    const a = await appInstance("a");
    const b = await appInstance("b");
    const live = runningOn(a);
    const one = client();
    const two = client();
    const leaveOne = b.follows.follow({ runId: live.runId, owner: "a", after: "0" }, one.sink);
    const leaveTwo = b.follows.follow({ runId: live.runId, owner: "a", after: "0" }, two.sink);
    await expect.poll(() => [one.ids().length, two.ids().length], settle).toEqual([1, 1]);
    expect(a.follows.forwardingCount).toBe(1);
    leaveOne();
    toolCall(live, 1);
    await expect.poll(() => two.ids().length, settle).toBe(2);
    expect([a.follows.forwardingCount, one.ids().length]).toEqual([1, 1]);
    leaveTwo();
    await expect.poll(() => a.follows.forwardingCount, settle).toBe(0);
    expect(b.follows.followingCount).toBe(0);
  });

  it("following runs held elsewhere is capped per user (MAX_FOLLOWS_PER_USER) and per run (MAX_FOLLOWS_PER_RUN): a 429 past them", async () => {
    const a = await appInstance("a");
    const b = await appInstance("b", { maxPerUser: 3, maxPerRun: 2 });
    const [r1, r2, r3] = [runningOn(a), runningOn(a), runningOn(a)];
    const follow = (live: LiveRun, user: string) =>
      b.follows.follow({ runId: live.runId, owner: "a", after: "0", user }, client().sink);
    follow(r1, "u1");
    follow(r1, "u1");
    expect(() => follow(r1, "u2")).toThrow(
      expect.objectContaining({ code: "rate_limited:follows_per_run", status: 429 }),
    );
    follow(r2, "u1");
    expect(() => follow(r3, "u1")).toThrow(
      expect.objectContaining({ code: "rate_limited:follows_per_user", status: 429 }),
    );
    follow(r3, "u2");
    expect(b.follows.followingCount).toBe(4);
    await expect.poll(() => a.follows.forwardingCount, settle).toBe(3);
  });

  it("an owner forwards a run once per follower instance: a second follow of it from the same instance replaces the first", async () => {
    const a = await appInstance("a");
    // A follower that never answers what it gets (no unfollow for a follow it does not know).
    const link = await InstanceLink.open({ url: database.url, instanceId: "bare", handle: nothing });
    cleanups.push(() => link.close());
    await new InstanceRegistry(pool, { id: "bare" }).register();
    const live = runningOn(a);
    const follow = (followId: string) => ({
      kind: "follow",
      followId,
      runId: live.runId,
      after: "0",
      follower: "bare",
    });
    await link.request("a", follow("f1"));
    await link.request("a", follow("f2"));
    expect(a.follows.forwardingCount).toBe(1);
  });

  it("a follow naming another instance as its follower, or from an unregistered one, is refused and nothing is forwarded", async () => {
    const a = await appInstance("a");
    const b = await appInstance("b");
    await appInstance("c");
    const live = runningOn(a);
    const sent = sentEvents(a);
    await expect(
      b.link.request("a", { kind: "follow", followId: "f1", runId: live.runId, after: "0", follower: "c" }),
    ).rejects.toMatchObject({ code: "forbidden:follower", status: 403 });
    await b.registry.deregister();
    await expect(
      b.link.request("a", { kind: "follow", followId: "f2", runId: live.runId, after: "0", follower: "b" }),
    ).rejects.toMatchObject({ code: "forbidden:follower" });
    expect([a.follows.forwardingCount, sent()]).toEqual([0, 0]);
  });
});
