import "server-only";
import pg from "pg";
import { getConfig } from "@/lib/config";

/**
 * An instance's PostgreSQL `LISTEN/NOTIFY` channel (docs/architecture.md, "Several app instances"):
 * one dedicated connection, outside the pool, listening on the instance's own channel. Messages are
 * JSON; one too long for a notification (payloads are under 8000 bytes) is sent as numbered chunks
 * in one statement and put together again here. When the connection drops it reconnects with
 * backoff, listens again and calls `onReconnect`: whatever was sent meanwhile is lost.
 */

/** PostgreSQL refuses a payload of 8000 bytes or more. */
export const MAX_PAYLOAD_BYTES = 7999;
/** Bytes of the message's JSON per chunk: base64 makes them 4/3 as long, and the envelope fits beside. */
const CHUNK_BYTES = 5600;

type Envelope = { m: string; d: unknown } | { m: string; i: number; n: number; p: string };

export interface NotifyChannelOptions {
  url: string;
  /** The channel this instance listens on; a lowercase name of at most 63 bytes. */
  channel: string;
  onMessage: (message: unknown) => void;
  /** Called after the connection was lost and is listening again. */
  onReconnect?: () => void;
  /** How long `close` waits for the messages already queued to go out; INSTANCE_REQUEST_TIMEOUT_S by default. */
  closeTimeoutMs?: number;
  /** First reconnect delay; it doubles up to `maxReconnectDelayMs`. */
  reconnectDelayMs?: number;
  maxReconnectDelayMs?: number;
}

const CHANNEL_NAME = /^[a-z_][a-z0-9_]{0,62}$/;

/** The payloads that carry `message`: one envelope, or chunks when that would be too long. */
export function encodeMessage(message: unknown, id: string = crypto.randomUUID()): string[] {
  const whole = JSON.stringify({ m: id, d: message } satisfies Envelope);
  if (Buffer.byteLength(whole) <= MAX_PAYLOAD_BYTES) return [whole];
  const bytes = Buffer.from(JSON.stringify(message));
  const count = Math.ceil(bytes.length / CHUNK_BYTES);
  return Array.from({ length: count }, (_, index) =>
    JSON.stringify({
      m: id,
      i: index,
      n: count,
      p: bytes.subarray(index * CHUNK_BYTES, (index + 1) * CHUNK_BYTES).toString("base64"),
    } satisfies Envelope),
  );
}

/** Puts chunked messages together; a message is delivered once all its chunks are in. */
export class MessageAssembler {
  private readonly partial = new Map<string, string[]>();

  /** The message a payload completes, or undefined while chunks are missing. */
  accept(payload: string): { message: unknown } | undefined {
    const envelope = JSON.parse(payload) as Envelope;
    if ("d" in envelope) return { message: envelope.d };
    const parts = this.partial.get(envelope.m) ?? new Array<string>(envelope.n);
    parts[envelope.i] = envelope.p;
    if (parts.filter((part) => part !== undefined).length < envelope.n) {
      this.partial.set(envelope.m, parts);
      return undefined;
    }
    this.partial.delete(envelope.m);
    const bytes = Buffer.concat(parts.map((part) => Buffer.from(part, "base64")));
    return { message: JSON.parse(bytes.toString("utf8")) };
  }

  /** Chunks of a message that can no longer complete (the connection was lost) are dropped. */
  clear(): void {
    this.partial.clear();
  }

  get pending(): number {
    return this.partial.size;
  }
}

export class NotifyChannel {
  private client: pg.Client | undefined;
  private readonly assembler = new MessageAssembler();
  private reconnectTimer: NodeJS.Timeout | undefined;
  private failures = 0;
  private closed = false;
  /** Messages waiting for the statement on its way (one query at a time on the connection). */
  private readonly queued: {
    channel: string;
    payloads: string[];
    resolve: () => void;
    reject: (error: unknown) => void;
  }[] = [];
  private sending = false;
  /** Who waits for the queue to be sent (closing). */
  private readonly idle: (() => void)[] = [];

  private constructor(private readonly options: NotifyChannelOptions) {}

  /** Connects and listens; rejects when the first connection fails. */
  static async open(options: NotifyChannelOptions): Promise<NotifyChannel> {
    if (!CHANNEL_NAME.test(options.channel)) throw new Error(`Not a channel name: ${options.channel}`);
    const channel = new NotifyChannel(options);
    await channel.connect();
    return channel;
  }

  /** Whether the connection is up and listening. */
  get listening(): boolean {
    return this.client !== undefined;
  }

  /**
   * Sends `message` to whoever listens on `channel` now; rejects while this channel's connection is
   * down. Messages arrive in the order of the calls, or not at all. Those sent while a statement is
   * on its way go together in the next one: each statement is a commit, and a burst of answer
   * deltas costs one commit instead of one each.
   */
  send(channel: string, message: unknown): Promise<void> {
    if (!CHANNEL_NAME.test(channel)) return Promise.reject(new Error(`Not a channel name: ${channel}`));
    const payloads = encodeMessage(message);
    return new Promise((resolve, reject) => {
      this.queued.push({ channel, payloads, resolve, reject });
      if (!this.sending) void this.sendQueued();
    });
  }

  private async sendQueued(): Promise<void> {
    this.sending = true;
    while (this.queued.length > 0) {
      const batch = this.queued.splice(0);
      try {
        const client = this.client;
        if (!client) throw new Error("The instance's PostgreSQL channel is reconnecting.");
        // One statement, so every chunk is committed (and delivered) together or not at all, in order.
        await client.query(
          "SELECT pg_notify(channel, payload) FROM unnest($1::text[], $2::text[]) AS message(channel, payload)",
          [
            batch.flatMap((queued) => queued.payloads.map(() => queued.channel)),
            batch.flatMap((queued) => queued.payloads),
          ],
        );
        for (const queued of batch) queued.resolve();
      } catch (error) {
        for (const queued of batch) queued.reject(error);
      }
    }
    this.sending = false;
    for (const resolve of this.idle.splice(0)) resolve();
  }

  /**
   * Sends what is queued (waiting at most `closeTimeoutMs`: what is still queued then is refused),
   * stops listening and closes the connection; no reconnect follows.
   */
  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.reconnectTimer);
    if (this.sending) {
      let timer: NodeJS.Timeout | undefined;
      const waited = new Promise<void>((resolve) => {
        timer = setTimeout(resolve, this.options.closeTimeoutMs ?? getConfig().INSTANCE_REQUEST_TIMEOUT_S * 1000);
      });
      await Promise.race([new Promise<void>((resolve) => this.idle.push(resolve)), waited]);
      clearTimeout(timer);
    }
    const client = this.client;
    this.client = undefined;
    await client?.end();
  }

  private async connect(): Promise<void> {
    const client = new pg.Client({ connectionString: this.options.url });
    // Without a listener an error would crash the process; a lost connection is handled by `end`.
    client.on("error", () => {});
    client.on("notification", (notification) => {
      if (notification.channel !== this.options.channel || notification.payload === undefined) return;
      let delivered: { message: unknown } | undefined;
      try {
        delivered = this.assembler.accept(notification.payload);
      } catch {
        return; // Not one of ours: anyone who may connect can notify, and a malformed payload is dropped.
      }
      if (delivered) this.options.onMessage(delivered.message);
    });
    try {
      await client.connect();
      await client.query(`LISTEN ${client.escapeIdentifier(this.options.channel)}`);
    } catch (error) {
      await client.end().catch(() => {});
      throw error;
    }
    if (this.closed) {
      await client.end();
      return;
    }
    client.once("end", () => this.lost(client));
    this.client = client;
    this.failures = 0;
  }

  private lost(client: pg.Client): void {
    if (this.client !== client) return;
    this.client = undefined;
    this.assembler.clear();
    this.scheduleReconnect();
  }

  private scheduleReconnect(): void {
    if (this.closed) return;
    const { reconnectDelayMs = 250, maxReconnectDelayMs = 10_000 } = this.options;
    const delay = Math.min(reconnectDelayMs * 2 ** this.failures, maxReconnectDelayMs);
    this.reconnectTimer = setTimeout(async () => {
      try {
        await this.connect();
        if (this.client) this.options.onReconnect?.();
      } catch {
        this.failures++;
        this.scheduleReconnect();
      }
    }, delay);
    this.reconnectTimer.unref();
  }
}
