import "server-only";
import pg from "pg";
import { getConfig } from "@/lib/env-config";
import { backoffDelay } from "@/lib/util/backoff";
import {
  clusterKey,
  type EnvelopeLimits,
  encodeMessage,
  envelopeLimits,
  MessageReceiver,
  type RejectReason,
} from "./envelope";

/**
 * An instance's PostgreSQL `LISTEN/NOTIFY` channel (docs/cluster.md, "Several app instances"):
 * one dedicated connection, outside the pool, listening on the instance's own channel. Messages are
 * JSON in a signed envelope (lib/cluster/envelope.ts); one too long for a notification (payloads
 * are under 8000 bytes) is sent as numbered chunks in one statement and put together again here. A
 * payload that fails the envelope's checks is dropped, counted (`rejected`) and logged; one that
 * makes `onMessage` throw is logged: neither ever reaches pg's notification handler, whose
 * connection would not recover. When the connection drops it reconnects with backoff, listens
 * again and calls `onReconnect`: whatever was sent meanwhile is lost.
 */

export interface NotifyChannelOptions {
  url: string;
  /** The channel this instance listens on; a lowercase name of at most 63 bytes. */
  channel: string;
  /** Called with each message that passed the envelope's checks (lib/cluster/envelope.ts). */
  onMessage: (message: unknown) => void;
  /** Called after the connection was lost and is listening again. */
  onReconnect?: () => void;
  /** How long `close` waits for the messages already queued to go out; INSTANCE_REQUEST_TIMEOUT_S by default. */
  closeTimeoutMs?: number;
  /** First reconnect delay; it doubles up to `maxReconnectDelayMs`. */
  reconnectDelayMs?: number;
  maxReconnectDelayMs?: number;
  /** The key messages are signed and checked with; CLUSTER_SECRET's (`clusterKey`) by default. */
  key?: Buffer;
  /** The envelope's bounds; from the configuration by default. */
  limits?: Partial<EnvelopeLimits>;
}

const CHANNEL_NAME = /^[a-z_][a-z0-9_]{0,62}$/;
/** A dropped payload is logged at most this often per reason (a flood must not flood the log too). */
const REJECT_LOG_INTERVAL_MS = 60_000;
const REJECT_HINTS: Record<RejectReason, string> = {
  unsigned: "something that is no app instance notifies this channel, or one of an earlier release",
  forged: "every instance needs the same CLUSTER_SECRET",
  malformed: "an instance of another release, or one holding CLUSTER_SECRET that should not",
  stale: "keep the instances' clocks in sync (NTP), within CLUSTER_MESSAGE_MAX_AGE_S",
  replayed: "a message sent again by someone who saw it",
  too_large: "a message over CLUSTER_MAX_MESSAGE_MB",
};

export class NotifyChannel {
  private client: pg.Client | undefined;
  private readonly key: Buffer;
  private readonly limits: EnvelopeLimits;
  private readonly receiver: MessageReceiver;
  /** Payloads dropped, by reason. */
  readonly rejected: Partial<Record<RejectReason, number>> = {};
  private readonly rejectLogged = new Map<RejectReason, number>();
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

  private constructor(private readonly options: NotifyChannelOptions) {
    this.key = options.key ?? clusterKey();
    this.limits = envelopeLimits(options.limits);
    this.receiver = new MessageReceiver(this.key, options.channel, this.limits);
  }

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
    let payloads: string[];
    try {
      payloads = encodeMessage(this.key, channel, message, { maxMessageBytes: this.limits.maxMessageBytes });
    } catch (error) {
      return Promise.reject(error);
    }
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
      this.receive(notification.payload);
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

  /** Anyone who may connect can notify: only a payload that passes the envelope's checks is delivered. */
  private receive(payload: string): void {
    const accepted = this.receiver.accept(payload);
    if (!accepted) return;
    if ("rejected" in accepted) {
      this.reject(accepted.rejected);
      return;
    }
    try {
      this.options.onMessage(accepted.message);
    } catch (error) {
      console.error(`[cluster] a message on ${this.options.channel} could not be handled; dropped`, error);
    }
  }

  private reject(reason: RejectReason): void {
    this.rejected[reason] = (this.rejected[reason] ?? 0) + 1;
    const now = Date.now();
    const last = this.rejectLogged.get(reason);
    if (last !== undefined && now - last < REJECT_LOG_INTERVAL_MS) return;
    this.rejectLogged.set(reason, now);
    console.warn(
      `[cluster] dropped a ${reason} message on ${this.options.channel} (${this.rejected[reason]} so far); ${REJECT_HINTS[reason]}`,
    );
  }

  /** Chunked messages waiting for their other chunks. */
  get pending(): number {
    return this.receiver.pending;
  }

  private lost(client: pg.Client): void {
    if (this.client !== client) return;
    this.client = undefined;
    this.receiver.clear();
    this.scheduleReconnect();
  }

  private scheduleReconnect(): void {
    if (this.closed) return;
    const { reconnectDelayMs = 250, maxReconnectDelayMs = 10_000 } = this.options;
    const delay = backoffDelay(this.failures, { firstMs: reconnectDelayMs, maxMs: maxReconnectDelayMs });
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
