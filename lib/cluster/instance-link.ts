import "server-only";
import { z } from "zod";
import { getConfig } from "@/lib/env-config";
import { AppError, type ServerErrorCode } from "@/lib/errors";
import { instanceChannel } from "./instance-registry";
import { NotifyChannel } from "./notify-channel";

/**
 * Requests from one app instance to another over their `NotifyChannel`s (docs/cluster.md,
 * "Several app instances"): the instance holding a run answers a stop or a follow-up sent to
 * another instance. Each request has a reply: the handler's value, or the `AppError` it threw,
 * which the sender throws in turn, so the HTTP request gets the owner's verdict. Notifications are
 * delivered only to sessions listening at that moment, so no reply within the timeout is a
 * retryable 503, never a silent success. Services added with `attach` (lib/cluster/run-follow.ts)
 * also send one-way messages, which have no reply and may be lost, and learn when the channel
 * reconnected after losing whatever was sent meanwhile.
 */

const instanceId = z.string().min(1).max(64);
const wireError = z.object({
  code: z.string().max(100),
  message: z.string().max(10_000),
  retryable: z.boolean(),
  details: z.unknown().optional(),
});
type WireError = { code: ServerErrorCode; message: string; retryable: boolean; details?: unknown };

/** What goes over the link, checked on receipt: a signed envelope may still carry a shape of another release. */
const wire = z.union([
  z.object({ t: z.literal("request"), id: z.string().min(1).max(64), from: instanceId, body: z.unknown() }),
  z.object({
    t: z.literal("reply"),
    id: z.string().min(1).max(64),
    ok: z.literal(true),
    value: z.unknown(),
  }),
  z.object({ t: z.literal("reply"), id: z.string().min(1).max(64), ok: z.literal(false), error: wireError }),
  z.object({ t: z.literal("message"), from: instanceId, body: z.unknown() }),
]);

type Reply =
  | { t: "reply"; id: string; ok: true; value: unknown }
  | { t: "reply"; id: string; ok: false; error: WireError };
type Request = { t: "request"; id: string; from: string; body: unknown };
type Message = { t: "message"; from: string; body: unknown };
type Wire = Request | Reply | Message;

/** A service's answer to a request: the reply's value, and what to do once the reply is queued (it goes out before anything sent then). */
export interface ServiceAnswer {
  value: unknown;
  afterReply?: () => void;
}

/** A service on the link besides `handle`: the requests it answers, its one-way messages, reconnects. */
export interface LinkService {
  /** The answer to a request from the instance `from` that is this service's; undefined for one that is not (`handle` answers it). */
  answer?(body: unknown, from: string): Promise<ServiceAnswer> | undefined;
  /** A one-way message from the instance `from`. */
  receive?(body: unknown, from: string): void;
  /** The channel is listening again after a loss: messages sent to this instance meanwhile are lost. */
  reconnected?(): void;
}

export interface InstanceLinkOptions {
  url: string;
  instanceId: string;
  /** Answers a request another instance sent; an `AppError` it throws is the sender's verdict. */
  handle: (body: unknown) => Promise<unknown>;
  /** How long a request waits for its reply; INSTANCE_REQUEST_TIMEOUT_S by default. */
  timeoutMs?: number;
  reconnectDelayMs?: number;
}

export function unreachableOwner(cause?: unknown): AppError {
  return new AppError(
    "unavailable:instance_unreachable",
    "The server running this answer did not respond. Try again in a moment.",
    // A dead owner is swept within a few heartbeats; a retry then finds the run stored.
    { retryable: true, cause, details: { retryAfterSeconds: getConfig().INSTANCE_HEARTBEAT_S } },
  );
}

export class InstanceLink {
  private readonly waiting = new Map<string, { resolve: (reply: Reply) => void; timer: NodeJS.Timeout }>();
  private readonly services: LinkService[] = [];

  private constructor(
    private readonly channel: NotifyChannel,
    private readonly options: InstanceLinkOptions,
  ) {}

  static async open(options: InstanceLinkOptions): Promise<InstanceLink> {
    let link: InstanceLink | undefined;
    const channel = await NotifyChannel.open({
      url: options.url,
      channel: instanceChannel(options.instanceId),
      reconnectDelayMs: options.reconnectDelayMs,
      closeTimeoutMs: options.timeoutMs,
      onMessage: (message) => link?.receive(message),
      onReconnect: () => {
        for (const service of link?.services ?? []) service.reconnected?.();
      },
    });
    link = new InstanceLink(channel, options);
    return link;
  }

  /** Sends `body` to the instance `instanceId` and resolves with its handler's value; throws its verdict. */
  async request(instanceId: string, body: unknown): Promise<unknown> {
    const id = crypto.randomUUID();
    const reply = new Promise<Reply>((resolve) => {
      const timer = setTimeout(
        () => {
          this.waiting.delete(id);
          resolve({ t: "reply", id, ok: false, error: toWireError(unreachableOwner()) });
        },
        this.options.timeoutMs ?? getConfig().INSTANCE_REQUEST_TIMEOUT_S * 1000,
      );
      this.waiting.set(id, { resolve, timer });
    });
    try {
      await this.channel.send(instanceChannel(instanceId), {
        t: "request",
        id,
        from: this.options.instanceId,
        body,
      } satisfies Wire);
    } catch (error) {
      this.settle(id);
      throw unreachableOwner(error);
    }
    const answer = await reply;
    if (answer.ok) return answer.value;
    const { code, message, retryable, details } = answer.error;
    throw new AppError(code, message, { retryable, details });
  }

  /** The instance's id, the `from` of what it sends. */
  get instanceId(): string {
    return this.options.instanceId;
  }

  attach(service: LinkService): void {
    this.services.push(service);
  }

  /**
   * Sends `body` to the instance `instanceId` without a reply; rejects while this instance's channel
   * is down. Messages sent one after the other arrive in that order, or not at all.
   */
  send(instanceId: string, body: unknown): Promise<void> {
    return this.channel.send(instanceChannel(instanceId), {
      t: "message",
      from: this.options.instanceId,
      body,
    } satisfies Wire);
  }

  async close(): Promise<void> {
    for (const id of [...this.waiting.keys()])
      this.settle(id)?.resolve({ t: "reply", id, ok: false, error: toWireError(unreachableOwner()) });
    await this.channel.close();
  }

  private settle(id: string): { resolve: (reply: Reply) => void } | undefined {
    const entry = this.waiting.get(id);
    if (!entry) return undefined;
    clearTimeout(entry.timer);
    this.waiting.delete(id);
    return entry;
  }

  private receive(received: unknown): void {
    const parsed = wire.safeParse(received);
    if (!parsed.success) {
      console.warn("[cluster] dropped a message from another instance that is not a request, reply or message");
      return;
    }
    const message = parsed.data as Wire;
    if (message.t === "reply") {
      this.settle(message.id)?.resolve(message);
      return;
    }
    if (message.t === "message") {
      for (const service of this.services) service.receive?.(message.body, message.from);
      return;
    }
    void this.answer(message);
  }

  private async answer(request: Request): Promise<void> {
    let reply: Reply;
    let afterReply: (() => void) | undefined;
    try {
      const answered = (await this.answeredByService(request.body, request.from)) ?? {
        value: await this.options.handle(request.body),
      };
      afterReply = answered.afterReply;
      reply = { t: "reply", id: request.id, ok: true, value: answered.value };
    } catch (error) {
      if (!(error instanceof AppError)) console.error("[cluster] a request from another instance failed", error);
      const verdict =
        error instanceof AppError
          ? error
          : new AppError("internal", "The server running this answer could not handle the request.");
      reply = { t: "reply", id: request.id, ok: false, error: toWireError(verdict) };
    }
    // A reply that cannot be sent makes the sender time out: that is its verdict then.
    const sent = this.channel.send(instanceChannel(request.from), reply).catch(() => {});
    afterReply?.();
    await sent;
  }

  private answeredByService(body: unknown, from: string): Promise<ServiceAnswer> | undefined {
    for (const service of this.services) {
      const answer = service.answer?.(body, from);
      if (answer) return answer;
    }
    return undefined;
  }
}

function toWireError(error: AppError): WireError {
  return {
    code: error.code,
    message: error.message,
    retryable: error.retryable,
    ...(error.details === undefined ? {} : { details: error.details }),
  };
}
