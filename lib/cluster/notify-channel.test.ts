import { randomBytes } from "node:crypto";
import pg from "pg";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { freshPostgresDatabase } from "@/tests/support/postgres-database";
import type { ThrowawayDatabase } from "@/tests/support/throwaway-postgres";
import { clusterKey, encodeMessage, MAX_PAYLOAD_BYTES, MessageReceiver, sign } from "./envelope";
import { NotifyChannel, type NotifyChannelOptions } from "./notify-channel";

let database: ThrowawayDatabase;
let admin: pg.Client;
const opened: NotifyChannel[] = [];

beforeAll(async () => {
  database = await freshPostgresDatabase("notify_channel");
  admin = new pg.Client({ connectionString: database.url });
  await admin.connect();
});

afterEach(async () => {
  await Promise.all(opened.splice(0).map((channel) => channel.close()));
});

afterAll(async () => {
  await admin?.end();
  await database?.drop();
});

/** A channel whose received messages are kept, in order, with a way to wait for the n-th. */
async function listen(
  channel: string,
  extra: Partial<Pick<NotifyChannelOptions, "onReconnect" | "reconnectDelayMs" | "closeTimeoutMs" | "limits">> & {
    onMessage?: (message: unknown) => void;
  } = {},
) {
  const { onMessage, ...options } = extra;
  const received: unknown[] = [];
  const waiters: { count: number; resolve: () => void }[] = [];
  const opened_ = await NotifyChannel.open({
    url: database.url,
    channel,
    onMessage: (message) => {
      onMessage?.(message);
      received.push(message);
      for (const waiter of waiters.filter((waiter) => received.length >= waiter.count)) waiter.resolve();
    },
    ...options,
  });
  opened.push(opened_);
  const receivedCount = (count: number) =>
    received.length >= count ? Promise.resolve() : new Promise<void>((resolve) => waiters.push({ count, resolve }));
  return { channel: opened_, received, receivedCount };
}

/** The backends listening on `channel`'s connections other than the admin's. */
async function listenerPids(): Promise<number[]> {
  const { rows } = await admin.query<{ pid: number }>(
    "SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid() AND backend_type = 'client backend'",
  );
  return rows.map((row) => row.pid);
}

describe("PostgreSQL notify channel", () => {
  it("delivers a message to the channel it is addressed to, and to no other", async () => {
    const a = await listen("instance_a");
    const b = await listen("instance_b");
    await a.channel.send("instance_b", { type: "stop", runId: "r1" });
    await a.channel.send("instance_a", { type: "note", text: "to myself" });
    await Promise.all([a.receivedCount(1), b.receivedCount(1)]);
    expect(b.received).toEqual([{ type: "stop", runId: "r1" }]);
    expect(a.received).toEqual([{ type: "note", text: "to myself" }]);
  });

  it("sends one query at a time on its connection, however many sends overlap, and they arrive in call order", async () => {
    const a = await listen("instance_a");
    const b = await listen("instance_b");
    let running = 0;
    let most = 0;
    const query = pg.Client.prototype.query;
    const spy = vi.spyOn(pg.Client.prototype, "query").mockImplementation(function (this: pg.Client, ...args) {
      running++;
      most = Math.max(most, running);
      const result = (query as (...args: unknown[]) => Promise<unknown>).apply(this, args);
      void Promise.resolve(result).finally(() => running--);
      return result as never;
    });
    try {
      await Promise.all(Array.from({ length: 20 }, (_, n) => a.channel.send("instance_b", { n })));
    } finally {
      spy.mockRestore();
    }
    await b.receivedCount(20);
    expect(most).toBe(1);
    expect(b.received).toEqual(Array.from({ length: 20 }, (_, n) => ({ n })));
  });

  it("a message longer than a notification's 8000 bytes arrives whole, once, in chunks", async () => {
    const sender = await listen("long_sender");
    const receiver = await listen("long_receiver");
    // Multi-byte characters, JSON escapes and a lone surrogate, cut wherever the chunks fall.
    const text = `${'日本語の回答 😀 "quoted" \\ \n'.repeat(2000)}\ud800 end`;
    const message = { type: "event", data: { content: text } };
    const payloads = encodeMessage(clusterKey(), "long_receiver", message);
    expect(payloads.length).toBeGreaterThan(1);
    for (const payload of payloads) expect(Buffer.byteLength(payload)).toBeLessThanOrEqual(MAX_PAYLOAD_BYTES);

    await sender.channel.send("long_receiver", message);
    await sender.channel.send("long_receiver", { type: "after" });
    await receiver.receivedCount(2);
    expect(receiver.received).toEqual([JSON.parse(JSON.stringify(message)), { type: "after" }]);
  });

  it("a message of exactly the largest payload goes as one notification, one byte more in chunks", () => {
    const key = clusterKey();
    const envelopeBytes = Buffer.byteLength(sign(key, "to", JSON.stringify({ m: "id", t: 1, d: "" })));
    const fits = "x".repeat(MAX_PAYLOAD_BYTES - envelopeBytes);
    expect(encodeMessage(key, "to", fits, { id: "id", now: 1 })).toHaveLength(1);
    expect(encodeMessage(key, "to", `${fits}x`, { id: "id", now: 1 }).length).toBeGreaterThan(1);
  });

  it("puts chunks together whatever order they arrive in, and drops a malformed payload", async () => {
    const assembler = new MessageReceiver(clusterKey(), "to");
    const payloads = encodeMessage(clusterKey(), "to", { big: "ü".repeat(20_000) }, { id: "m1" });
    const [first, ...rest] = payloads;
    for (const payload of rest.reverse()) expect(assembler.accept(payload)).toBeUndefined();
    expect(assembler.accept(first ?? "")).toEqual({ message: { big: "ü".repeat(20_000) } });
    expect(assembler.pending).toBe(0);

    const receiver = await listen("malformed");
    await admin.query("SELECT pg_notify('malformed', 'not json')");
    await admin.query(`SELECT pg_notify('malformed', $1)`, [encodeMessage(clusterKey(), "malformed", "fine")[0]]);
    await receiver.receivedCount(1);
    expect(receiver.received).toEqual(["fine"]);
  });

  it("messages sent while a statement is on its way go together in the next one, in order, to their channels", async () => {
    const a = await listen("burst_a");
    const b = await listen("burst_b");
    const statements = vi.spyOn(pg.Client.prototype, "query");
    const sent = Array.from({ length: 300 }, (_, index) =>
      a.channel.send(index % 3 ? "burst_a" : "burst_b", { index, text: index === 150 ? "ü".repeat(9_000) : "word" }),
    );
    await Promise.all(sent);
    const notifies = statements.mock.calls.filter(([text]) => String(text).includes("pg_notify"));
    statements.mockRestore();
    // The first goes alone; the other 299 wait for it and share one commit.
    expect(notifies).toHaveLength(2);
    await Promise.all([a.receivedCount(200), b.receivedCount(100)]);
    expect(a.received.map((message) => (message as { index: number }).index)).toEqual(
      Array.from({ length: 300 }, (_, index) => index).filter((index) => index % 3),
    );
    expect(b.received.map((message) => (message as { index: number }).index)).toEqual(
      Array.from({ length: 100 }, (_, index) => index * 3),
    );
  });

  it("reconnects after its connection is killed, listens again, and says so", async () => {
    let reconnects = 0;
    const receiver = await listen("survivor", { onReconnect: () => reconnects++, reconnectDelayMs: 20 });
    const sender = await listen("survivor_sender");
    const before = await listenerPids();
    await admin.query("SELECT pg_terminate_backend(pid) FROM unnest($1::int[]) AS pid", [before]);
    await expect.poll(() => reconnects, { timeout: 10_000 }).toBe(1);
    await expect.poll(() => receiver.channel.listening && sender.channel.listening, { timeout: 10_000 }).toBe(true);

    await sender.channel.send("survivor", { type: "after reconnect" });
    await receiver.receivedCount(1);
    expect(receiver.received).toEqual([{ type: "after reconnect" }]);
  });

  it("sending while its connection is down is refused with a clear error", async () => {
    const sender = await listen("down_sender", { reconnectDelayMs: 60_000 });
    await admin.query("SELECT pg_terminate_backend(pid) FROM unnest($1::int[]) AS pid", [await listenerPids()]);
    await expect.poll(() => sender.channel.listening).toBe(false);
    await expect(sender.channel.send("anyone", {})).rejects.toThrow(/reconnecting/);
  });

  it("closing ends its connection and no reconnect follows", async () => {
    let reconnects = 0;
    const { channel } = await listen("closing", { onReconnect: () => reconnects++, reconnectDelayMs: 10 });
    expect(await listenerPids()).toHaveLength(1);
    await channel.close();
    await expect.poll(listenerPids).toEqual([]);
    expect(channel.listening).toBe(false);
    expect(reconnects).toBe(0);
  });

  it("closing sends the messages queued before it, then ends the connection", async () => {
    const sender = await listen("closing_sender");
    const receiver = await listen("closing_receiver");
    const sent = Array.from({ length: 20 }, (_, n) => sender.channel.send("closing_receiver", { n }));
    await sender.channel.close();
    await Promise.all(sent);
    await receiver.receivedCount(20);
    expect(receiver.received).toEqual(Array.from({ length: 20 }, (_, n) => ({ n })));
    await expect(sender.channel.send("closing_receiver", {})).rejects.toThrow();
  });

  it("closing waits for queued messages at most closeTimeoutMs: one that does not go out by then is refused", async () => {
    const sender = await listen("stuck_sender", { closeTimeoutMs: 100 });
    // A statement that never completes until its connection ends.
    const spy = vi.spyOn(pg.Client.prototype, "query").mockImplementation(function (this: pg.Client) {
      return new Promise((_, reject) => this.once("end", () => reject(new Error("connection ended")))) as never;
    });
    try {
      const stuck = sender.channel.send("anyone", { n: 1 });
      await sender.channel.close();
      await expect(stuck).rejects.toThrow(/ended/);
    } finally {
      spy.mockRestore();
    }
    expect(sender.channel.listening).toBe(false);
  });

  it("refuses a channel name that is not a plain lowercase identifier", async () => {
    await expect(NotifyChannel.open({ url: database.url, channel: 'x"; DROP', onMessage: () => {} })).rejects.toThrow(
      /channel name/,
    );
    const { channel } = await listen("names");
    await expect(channel.send("A".repeat(64), {})).rejects.toThrow(/channel name/);
  });
});

/** A payload sent as is, as any role that may connect to the database can. */
const rawNotify = (channel: string, payload: string) => admin.query("SELECT pg_notify($1, $2)", [channel, payload]);
const signed = (channel: string, envelope: unknown) => sign(clusterKey(), channel, JSON.stringify(envelope));

describe("messages the channel does not trust", () => {
  it("drops unsigned payloads, the malformed and the huge-chunk-count ones included, and keeps delivering", async () => {
    const receiver = await listen("unsigned");
    const warned = vi.spyOn(console, "warn").mockImplementation(() => {});
    await rawNotify("unsigned", '{"m":"x","d":null}');
    await rawNotify("unsigned", '{"m":"x","i":0,"n":4294967295,"p":""}');
    await rawNotify("unsigned", JSON.stringify({ m: "y", t: Date.now(), d: { t: "request", body: { kind: "stop" } } }));
    await rawNotify("unsigned", encodeMessage(clusterKey(), "unsigned", "signed")[0] ?? "");
    await receiver.receivedCount(1);
    expect(receiver.received).toEqual(["signed"]);
    expect(receiver.channel.rejected).toEqual({ unsigned: 3 });
    expect(receiver.channel.pending).toBe(0);
    expect(warned).toHaveBeenCalledWith(expect.stringContaining("dropped a unsigned message on unsigned"));
    warned.mockRestore();
  });

  it("drops a payload signed with another key, or signed for another channel, as forged", async () => {
    const receiver = await listen("forged");
    vi.spyOn(console, "warn").mockImplementation(() => {});
    await rawNotify("forged", encodeMessage(randomBytes(32), "forged", { kind: "stop" })[0] ?? "");
    await rawNotify("forged", encodeMessage(clusterKey(), "instance_other", { kind: "stop" })[0] ?? "");
    await rawNotify("forged", encodeMessage(clusterKey(), "forged", "genuine")[0] ?? "");
    await receiver.receivedCount(1);
    expect(receiver.received).toEqual(["genuine"]);
    expect(receiver.channel.rejected).toEqual({ forged: 2 });
    vi.restoreAllMocks();
  });

  it("a replayed payload is taken once; one older than CLUSTER_MESSAGE_MAX_AGE_S, or from the future, not at all", async () => {
    const receiver = await listen("replayed", { limits: { maxAgeMs: 60_000 } });
    vi.spyOn(console, "warn").mockImplementation(() => {});
    const [once] = encodeMessage(clusterKey(), "replayed", "once");
    await rawNotify("replayed", once ?? "");
    await rawNotify("replayed", once ?? "");
    await rawNotify("replayed", encodeMessage(clusterKey(), "replayed", "old", { now: Date.now() - 61_000 })[0] ?? "");
    await rawNotify(
      "replayed",
      encodeMessage(clusterKey(), "replayed", "ahead", { now: Date.now() + 61_000 })[0] ?? "",
    );
    await rawNotify("replayed", encodeMessage(clusterKey(), "replayed", "last")[0] ?? "");
    await receiver.receivedCount(2);
    expect(receiver.received).toEqual(["once", "last"]);
    expect(receiver.channel.rejected).toEqual({ replayed: 1, stale: 2 });
    vi.restoreAllMocks();
  });

  it("a signed envelope of the wrong shape or bounds is dropped without reaching onMessage, and the connection goes on", async () => {
    const receiver = await listen("shapes");
    vi.spyOn(console, "warn").mockImplementation(() => {});
    const now = Date.now();
    await rawNotify("shapes", signed("shapes", { m: "x", d: null }));
    await rawNotify("shapes", signed("shapes", { m: "y", t: now, i: 0, n: 4294967295, p: "" }));
    await rawNotify("shapes", signed("shapes", { m: "z", t: now, i: 5, n: 3, p: "" }));
    await rawNotify("shapes", signed("shapes", { m: "w", t: "soon", d: 1 }));
    await rawNotify("shapes", sign(clusterKey(), "shapes", "{not json"));
    await rawNotify("shapes", encodeMessage(clusterKey(), "shapes", "fine")[0] ?? "");
    await receiver.receivedCount(1);
    expect(receiver.received).toEqual(["fine"]);
    expect(receiver.channel.rejected).toEqual({ malformed: 5 });
    expect(receiver.channel.pending).toBe(0);
    vi.restoreAllMocks();
  });

  it("a message that makes onMessage throw is logged and dropped; the next one arrives", async () => {
    const errors = vi.spyOn(console, "error").mockImplementation(() => {});
    const receiver = await listen("throwing", {
      onMessage: (message) => {
        if (message === null) throw new TypeError("Cannot read properties of null (reading 't')");
      },
    });
    await rawNotify("throwing", signed("throwing", { m: "x", t: Date.now(), d: null }));
    await rawNotify("throwing", encodeMessage(clusterKey(), "throwing", "after")[0] ?? "");
    await receiver.receivedCount(1);
    expect(receiver.received).toEqual(["after"]);
    expect(receiver.channel.listening).toBe(true);
    expect(errors).toHaveBeenCalledWith(expect.stringContaining("could not be handled"), expect.any(TypeError));
    errors.mockRestore();
  });

  it("chunks of messages that never complete are held for CLUSTER_MAX_PENDING_MESSAGES messages at most", async () => {
    const receiver = await listen("partial", { limits: { maxPending: 3 } });
    const now = Date.now();
    for (let index = 0; index < 10; index++) {
      await rawNotify("partial", signed("partial", { m: `never${index}`, t: now, i: 0, n: 2, p: "AAAA" }));
    }
    await rawNotify("partial", encodeMessage(clusterKey(), "partial", { long: "x".repeat(20_000) })[0] ?? "");
    await rawNotify("partial", encodeMessage(clusterKey(), "partial", "whole")[0] ?? "");
    await receiver.receivedCount(1);
    expect(receiver.received).toEqual(["whole"]);
    expect(receiver.channel.pending).toBe(3);
  });
});

describe("the envelope's bounds", () => {
  const key = randomBytes(32);
  const limits = { maxAgeMs: 1_000, maxMessageBytes: 1024 * 1024, maxPending: 2, maxRemembered: 3 };

  it("chunks that never complete are dropped once older than CLUSTER_MESSAGE_MAX_AGE_S", () => {
    const receiver = new MessageReceiver(key, "to", limits);
    const [first] = encodeMessage(key, "to", "x".repeat(20_000), { now: 10_000 });
    expect(receiver.accept(first ?? "", 10_000)).toBeUndefined();
    expect(receiver.pending).toBe(1);
    const [other] = encodeMessage(key, "to", "y".repeat(20_000), { now: 11_500 });
    expect(receiver.accept(other ?? "", 11_500)).toBeUndefined();
    expect(receiver.pending).toBe(1);
  });

  it("remembers CLUSTER_REPLAY_CACHE_ENTRIES ids at most, and a forgotten one is still refused", () => {
    const receiver = new MessageReceiver(key, "to", limits);
    const payloads = Array.from(
      { length: 6 },
      (_, index) => encodeMessage(key, "to", index, { now: 10_000 + index })[0] ?? "",
    );
    for (const payload of payloads) expect(receiver.accept(payload, 10_010)).toHaveProperty("message");
    expect(receiver.remembered).toBe(3);
    for (const payload of payloads) expect(receiver.accept(payload, 10_010)).toEqual({ rejected: "replayed" });
  });

  it("a message over CLUSTER_MAX_MESSAGE_MB is refused by its sender, and a chunk count past it by the receiver", () => {
    expect(() => encodeMessage(key, "to", "x".repeat(2 * 1024 * 1024), { maxMessageBytes: 1024 * 1024 })).toThrow(
      /CLUSTER_MAX_MESSAGE_MB/,
    );
    const receiver = new MessageReceiver(key, "to", limits);
    const tooMany = sign(key, "to", JSON.stringify({ m: "x", t: 10_000, i: 0, n: 1000, p: "" }));
    expect(receiver.accept(tooMany, 10_000)).toEqual({ rejected: "malformed" });
    expect(receiver.pending).toBe(0);
  });
});
