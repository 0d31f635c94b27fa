import pg from "pg";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { freshPostgresDatabase } from "@/tests/support/postgres-database";
import type { ThrowawayDatabase } from "@/tests/support/throwaway-postgres";
import { encodeMessage, MAX_PAYLOAD_BYTES, MessageAssembler, NotifyChannel } from "./notify-channel";

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
  extra: { onReconnect?: () => void; reconnectDelayMs?: number; closeTimeoutMs?: number } = {},
) {
  const received: unknown[] = [];
  const waiters: { count: number; resolve: () => void }[] = [];
  const opened_ = await NotifyChannel.open({
    url: database.url,
    channel,
    onMessage: (message) => {
      received.push(message);
      for (const waiter of waiters.filter((waiter) => received.length >= waiter.count)) waiter.resolve();
    },
    ...extra,
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
    expect(encodeMessage(message).length).toBeGreaterThan(1);
    for (const payload of encodeMessage(message))
      expect(Buffer.byteLength(payload)).toBeLessThanOrEqual(MAX_PAYLOAD_BYTES);

    await sender.channel.send("long_receiver", message);
    await sender.channel.send("long_receiver", { type: "after" });
    await receiver.receivedCount(2);
    expect(receiver.received).toEqual([JSON.parse(JSON.stringify(message)), { type: "after" }]);
  });

  it("a message of exactly the largest payload goes as one notification, one byte more in chunks", () => {
    const envelopeBytes = Buffer.byteLength(JSON.stringify({ m: "id", d: "" }));
    const fits = "x".repeat(MAX_PAYLOAD_BYTES - envelopeBytes);
    expect(encodeMessage(fits, "id")).toHaveLength(1);
    expect(encodeMessage(`${fits}x`, "id").length).toBeGreaterThan(1);
  });

  it("puts chunks together whatever order they arrive in, and drops a malformed payload", async () => {
    const assembler = new MessageAssembler();
    const payloads = encodeMessage({ big: "ü".repeat(20_000) }, "m1");
    const [first, ...rest] = payloads;
    for (const payload of rest.reverse()) expect(assembler.accept(payload)).toBeUndefined();
    expect(assembler.accept(first ?? "")).toEqual({ message: { big: "ü".repeat(20_000) } });
    expect(assembler.pending).toBe(0);

    const receiver = await listen("malformed");
    await admin.query("SELECT pg_notify('malformed', 'not json')");
    await admin.query(`SELECT pg_notify('malformed', $1)`, [encodeMessage("fine")[0]]);
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
