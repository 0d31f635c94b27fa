import "server-only";
import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import { z } from "zod";
import { getConfig } from "@/lib/env-config";

/**
 * What one `NOTIFY` payload of an instance's channel carries, and how a receiver decides to trust it
 * (docs/security.md, "Messages between app instances"). Any role that may connect to the database
 * may notify any channel, so every payload is signed: `<mac>.<json>`, the MAC an HMAC-SHA256 with
 * CLUSTER_SECRET over the destination channel and the JSON, which names the message (`m`, random)
 * and when it was sent (`t`, the sender's clock). A receiver drops — and counts, and logs — a
 * payload whose MAC is missing or wrong, whose shape or bounds are not an envelope's, whose time
 * is outside CLUSTER_MESSAGE_MAX_AGE_S of its own clock, or whose id it took already. Checked in
 * that order, so a payload nobody signed costs one HMAC and is never parsed.
 */

/** PostgreSQL refuses a payload of 8000 bytes or more. */
export const MAX_PAYLOAD_BYTES = 7999;
/** Bytes of the message's JSON per chunk: base64 makes them 4/3 as long, and the MAC and envelope fit beside. */
export const CHUNK_BYTES = 5600;
const CHUNK_BASE64_CHARS = Math.ceil(CHUNK_BYTES / 3) * 4;
/** base64url of a SHA-256 MAC, and the dot after it. */
const MAC_CHARS = 43;

export type RejectReason = "unsigned" | "forged" | "malformed" | "stale" | "replayed" | "too_large";

export interface EnvelopeLimits {
  /** How far a message's time may be from the receiver's clock; CLUSTER_MESSAGE_MAX_AGE_S by default. */
  maxAgeMs: number;
  /** The longest message (its JSON), which bounds a chunked message's count; CLUSTER_MAX_MESSAGE_MB. */
  maxMessageBytes: number;
  /** Chunked messages put together at once; CLUSTER_MAX_PENDING_MESSAGES. */
  maxPending: number;
  /** Message ids remembered against replay; CLUSTER_REPLAY_CACHE_ENTRIES. */
  maxRemembered: number;
}

export function envelopeLimits(overrides: Partial<EnvelopeLimits> = {}): EnvelopeLimits {
  const config = getConfig();
  return {
    maxAgeMs: config.CLUSTER_MESSAGE_MAX_AGE_S * 1000,
    maxMessageBytes: config.CLUSTER_MAX_MESSAGE_MB * 1024 * 1024,
    maxPending: config.CLUSTER_MAX_PENDING_MESSAGES,
    maxRemembered: config.CLUSTER_REPLAY_CACHE_ENTRIES,
    ...overrides,
  };
}

/**
 * The key messages are signed with: CLUSTER_SECRET, or without it a random key of this process's,
 * kept in memory only, so an instance without the secret takes no other process's message.
 */
const processKey = randomBytes(32);
export function clusterKey(): Buffer {
  const secret = getConfig().CLUSTER_SECRET;
  return secret ? Buffer.from(secret, "utf8") : processKey;
}

const messageId = z.string().min(1).max(64);
const sentAt = z.number().int().nonnegative().max(Number.MAX_SAFE_INTEGER);

function envelopeSchema(maxChunks: number) {
  const whole = z.strictObject({ m: messageId, t: sentAt, d: z.unknown() });
  const chunk = z
    .strictObject({
      m: messageId,
      t: sentAt,
      i: z
        .number()
        .int()
        .min(0)
        .max(maxChunks - 1),
      n: z.number().int().min(2).max(maxChunks),
      p: z
        .string()
        .max(CHUNK_BASE64_CHARS)
        .regex(/^[A-Za-z0-9+/]*={0,2}$/),
    })
    .refine((envelope) => envelope.i < envelope.n);
  return z.union([whole.refine((envelope) => "d" in envelope), chunk]);
}
type Envelope = { m: string; t: number; d: unknown } | { m: string; t: number; i: number; n: number; p: string };

export function sign(key: Buffer, channel: string, json: string): string {
  return `${createHmac("sha256", key).update(channel).update("\n").update(json).digest("base64url")}.${json}`;
}

/** The JSON a payload signed for `channel` carries, or why it is not one. */
function verified(key: Buffer, channel: string, payload: string): string | RejectReason {
  const dot = payload.indexOf(".");
  if (dot !== MAC_CHARS) return "unsigned";
  const json = payload.slice(dot + 1);
  const expected = Buffer.from(sign(key, channel, json).slice(0, MAC_CHARS));
  const given = Buffer.from(payload.slice(0, MAC_CHARS));
  return given.length === expected.length && timingSafeEqual(given, expected) ? json : "forged";
}

/**
 * The payloads that carry `message` to `channel`: one envelope, or chunks when that would be too
 * long. Throws for a message over `maxMessageBytes`: no receiver would take it.
 */
export function encodeMessage(
  key: Buffer,
  channel: string,
  message: unknown,
  {
    id = crypto.randomUUID(),
    now = Date.now(),
    maxMessageBytes = envelopeLimits().maxMessageBytes,
  }: { id?: string; now?: number; maxMessageBytes?: number } = {},
): string[] {
  const whole = sign(key, channel, JSON.stringify({ m: id, t: now, d: message } satisfies Envelope));
  if (Buffer.byteLength(whole) <= MAX_PAYLOAD_BYTES) return [whole];
  const bytes = Buffer.from(JSON.stringify(message));
  if (bytes.length > maxMessageBytes) {
    throw new Error(`A message of ${bytes.length} bytes is over CLUSTER_MAX_MESSAGE_MB; it was not sent.`);
  }
  const count = Math.ceil(bytes.length / CHUNK_BYTES);
  return Array.from({ length: count }, (_, index) =>
    sign(
      key,
      channel,
      JSON.stringify({
        m: id,
        t: now,
        i: index,
        n: count,
        p: bytes.subarray(index * CHUNK_BYTES, (index + 1) * CHUNK_BYTES).toString("base64"),
      } satisfies Envelope),
    ),
  );
}

/**
 * Message ids taken within the age window. Bounded: past `maxRemembered` the oldest is forgotten
 * and every message sent at or before its time is refused from then on, so a forgotten id can never
 * be taken twice.
 */
class ReplayGuard {
  private readonly seen = new Map<string, number>();
  private floor = -1;

  constructor(private readonly limits: Pick<EnvelopeLimits, "maxAgeMs" | "maxRemembered">) {}

  check(id: string, sentAt: number, now: number): RejectReason | undefined {
    if (Math.abs(now - sentAt) > this.limits.maxAgeMs) return "stale";
    if (sentAt <= this.floor || this.seen.has(id)) return "replayed";
    return undefined;
  }

  remember(id: string, sentAt: number, now: number): void {
    this.seen.set(id, sentAt);
    for (const [oldId, oldAt] of this.seen) {
      if (now - oldAt <= this.limits.maxAgeMs && this.seen.size <= this.limits.maxRemembered) break;
      this.seen.delete(oldId);
      if (now - oldAt <= this.limits.maxAgeMs) this.floor = Math.max(this.floor, oldAt);
    }
  }

  get size(): number {
    return this.seen.size;
  }
}

interface PartialMessage {
  sentAt: number;
  arrivedAt: number;
  parts: (string | undefined)[];
  have: number;
}

/**
 * One channel's receiving side: checks each payload and puts chunked messages together. At most
 * `maxPending` chunked messages wait for their other chunks, none longer than `maxAgeMs` (chunks
 * are sent in one statement, so they arrive together or not at all); the oldest is dropped first.
 */
export class MessageReceiver {
  private readonly partial = new Map<string, PartialMessage>();
  private readonly replays: ReplayGuard;
  private readonly schema: ReturnType<typeof envelopeSchema>;

  constructor(
    private readonly key: Buffer,
    private readonly channel: string,
    private readonly limits: EnvelopeLimits = envelopeLimits(),
  ) {
    this.replays = new ReplayGuard(limits);
    this.schema = envelopeSchema(Math.max(2, Math.ceil(limits.maxMessageBytes / CHUNK_BYTES)));
  }

  /** The message a payload completes; undefined while chunks are missing; or why it was dropped. */
  accept(payload: string, now = Date.now()): { message: unknown } | { rejected: RejectReason } | undefined {
    const json = verified(this.key, this.channel, payload);
    if (json === "unsigned" || json === "forged") return { rejected: json };
    let envelope: Envelope;
    try {
      const parsed = this.schema.safeParse(JSON.parse(json));
      if (!parsed.success) return { rejected: "malformed" };
      envelope = parsed.data as Envelope;
    } catch {
      return { rejected: "malformed" };
    }
    const refused = this.replays.check(envelope.m, envelope.t, now);
    if (refused) return { rejected: refused };
    if ("d" in envelope) {
      this.replays.remember(envelope.m, envelope.t, now);
      return { message: envelope.d };
    }
    return this.acceptChunk(envelope, now);
  }

  private acceptChunk(
    envelope: { m: string; t: number; i: number; n: number; p: string },
    now: number,
  ): { message: unknown } | { rejected: RejectReason } | undefined {
    this.dropExpired(now);
    let partial = this.partial.get(envelope.m);
    if (partial && (partial.parts.length !== envelope.n || partial.sentAt !== envelope.t)) {
      this.partial.delete(envelope.m);
      return { rejected: "malformed" };
    }
    if (!partial) {
      if (this.partial.size >= this.limits.maxPending) {
        const [oldest] = this.partial.keys();
        if (oldest !== undefined) this.partial.delete(oldest);
      }
      partial = { sentAt: envelope.t, arrivedAt: now, parts: new Array(envelope.n).fill(undefined), have: 0 };
      this.partial.set(envelope.m, partial);
    }
    if (partial.parts[envelope.i] === undefined) partial.have++;
    partial.parts[envelope.i] = envelope.p;
    if (partial.have < envelope.n) return undefined;
    this.partial.delete(envelope.m);
    this.replays.remember(envelope.m, envelope.t, now);
    const bytes = Buffer.concat(partial.parts.map((part) => Buffer.from(part ?? "", "base64")));
    if (bytes.length > this.limits.maxMessageBytes) return { rejected: "too_large" };
    try {
      return { message: JSON.parse(bytes.toString("utf8")) };
    } catch {
      return { rejected: "malformed" };
    }
  }

  private dropExpired(now: number): void {
    for (const [id, partial] of this.partial) {
      if (now - partial.arrivedAt <= this.limits.maxAgeMs) break;
      this.partial.delete(id);
    }
  }

  /** Chunks of a message that can no longer complete (the connection was lost) are dropped. */
  clear(): void {
    this.partial.clear();
  }

  /** Chunked messages waiting for chunks. */
  get pending(): number {
    return this.partial.size;
  }

  /** Message ids remembered against replay. */
  get remembered(): number {
    return this.replays.size;
  }
}
