import "server-only";
import { z } from "zod";
import type { LiveRun, LiveRuns } from "@/lib/chat/live-run";
import { getConfig } from "@/lib/env-config";
import { AppError } from "@/lib/errors";
import type { SentRunEvent } from "@/lib/protocol/run-events";
import type { InstanceLink, LinkService, ServiceAnswer } from "./instance-link";
import type { InstanceRegistry } from "./instance-registry";

/**
 * Following a run through an instance that does not hold it (docs/cluster.md, "Following a run
 * through another instance"). The follower asks the run's owner to `follow` it from the client's
 * position; the owner replies, then subscribes on its `LiveRun`, whose log holds every event answer
 * deltas included, and forwards the logged backlog as one message and each later event as one,
 * until the run ends (`end`), the follower leaves (`unfollow`) or the follower's instance is no
 * longer registered. Each message names the event the owner sent before it on that follow, and the
 * follower passes an event on only when that is the last one it passed: one already passed is
 * dropped (a re-follow after its channel reconnected replays from its last one), and a gap —
 * something lost while a channel was down, on either side — closes the stream, so the client
 * reconnects from the last event it has. A send the owner could not make stops its forwarding, and
 * once its channel listens again it sends `end`, so the follower's stream never waits forever.
 * Over 300 lines on purpose: the follower's and the owner's halves of this one message protocol are
 * kept side by side, so a change to one side is read beside the other.
 */

const followRequest = z.object({
  kind: z.literal("follow"),
  followId: z.string().min(1),
  runId: z.string().min(1),
  after: z.string(),
  follower: z.string().min(1),
});
type FollowRequest = z.infer<typeof followRequest>;

const followMessage = z.discriminatedUnion("kind", [
  z.object({
    kind: z.literal("events"),
    followId: z.string(),
    /** The id of the event sent before the first of these on this follow; "0" before the run's first. */
    prev: z.string(),
    events: z.array(z.object({ event: z.string(), id: z.string(), data: z.unknown() })).min(1),
  }),
  z.object({ kind: z.literal("end"), followId: z.string() }),
  z.object({ kind: z.literal("unfollow"), followId: z.string() }),
]);
type FollowMessage = z.infer<typeof followMessage>;

/** Where the follower's stream goes: the route's SSE response. */
export interface FollowSink {
  send(event: SentRunEvent): void;
  close(): void;
  /** The owner no longer holds the run: the stream goes on from the database, after `position`. */
  notHeld(position: string): void;
}

/** One client's stream sharing its instance's follow of a run. */
interface FollowClient {
  sink: FollowSink;
  /** The last event this client has. */
  position: string;
  /** Whose it is, for MAX_FOLLOWS_PER_USER ("" for the single local user). */
  user: string;
}

/** This instance's one follow of a run held elsewhere, shared by every client following it here. */
interface Following {
  runId: string;
  owner: string;
  /** Where the owner was asked to start: the log below holds every event after it. */
  start: string;
  /** The last event passed on, or `start` before the first. */
  position: string;
  /** Whether an event was passed on: until then the owner may replay from the start. */
  passedAny: boolean;
  /** The events passed on since `start`, for a client that joins later. */
  log: SentRunEvent[];
  clients: Set<FollowClient>;
}

interface Forwarding {
  runId: string;
  follower: string;
  stop: () => void;
  /** A send failed (this instance's channel was down): nothing more is sent but `end`, once it listens again. */
  broken: boolean;
}

export interface RunFollowsOptions {
  link: InstanceLink;
  /** This instance's runs, which other instances may follow. */
  liveRuns: LiveRuns;
  /** Which instances are still alive: forwarding to a gone follower stops, following a gone owner closes. */
  registry: Pick<InstanceRegistry, "registered">;
  /** How often that is checked; INSTANCE_HEARTBEAT_S by default. */
  checkMs?: number;
  /** Clients following runs held elsewhere through this instance: per user, and per run; the configuration's by default. */
  maxPerUser?: number;
  maxPerRun?: number;
  /** The longest message between instances; CLUSTER_MAX_MESSAGE_MB by default. */
  maxMessageBytes?: number;
}

export class RunFollows implements LinkService {
  /** This instance following other instances' runs, by follow id; one follow per run. */
  private readonly following = new Map<string, Following>();
  /** The follow id of each run followed. */
  private readonly followIdOf = new Map<string, string>();
  private readonly maxPerUser: number;
  private readonly maxPerRun: number;
  /** CLUSTER_MAX_MESSAGE_MB: a backlog goes in parts of half that at most. */
  private readonly maxMessageBytes: number;
  /** Other instances following this instance's runs, by follow id. */
  private readonly forwarding = new Map<string, Forwarding>();
  private readonly link: InstanceLink;
  private readonly liveRuns: LiveRuns;
  private readonly registry: RunFollowsOptions["registry"];
  private readonly timer: NodeJS.Timeout;

  constructor(options: RunFollowsOptions) {
    this.link = options.link;
    this.liveRuns = options.liveRuns;
    this.registry = options.registry;
    this.maxPerUser = options.maxPerUser ?? getConfig().MAX_FOLLOWS_PER_USER;
    this.maxPerRun = options.maxPerRun ?? getConfig().MAX_FOLLOWS_PER_RUN;
    this.maxMessageBytes = options.maxMessageBytes ?? getConfig().CLUSTER_MAX_MESSAGE_MB * 1024 * 1024;
    this.link.attach(this);
    this.timer = setInterval(() => void this.dropGone(), options.checkMs ?? getConfig().INSTANCE_HEARTBEAT_S * 1000);
    this.timer.unref();
  }

  /** How many runs of this instance are forwarded to followers now. */
  get forwardingCount(): number {
    return this.forwarding.size;
  }

  /** How many clients follow runs held elsewhere through this instance. */
  get followingCount(): number {
    let count = 0;
    for (const following of this.following.values()) count += following.clients.size;
    return count;
  }

  /**
   * Throws the 429 a client gets when it may not follow `runId` through this instance now: its user
   * follows MAX_FOLLOWS_PER_USER runs here already, or the run has MAX_FOLLOWS_PER_RUN clients here.
   */
  admit({ runId, user }: { runId: string; user: string | null }): void {
    let ofUser = 0;
    for (const following of this.following.values()) {
      for (const client of following.clients) if (client.user === (user ?? "")) ofUser++;
    }
    if (ofUser >= this.maxPerUser) {
      throw new AppError(
        "rate_limited:follows_per_user",
        `You follow ${this.maxPerUser} running answers through this server already. Close a tab, then retry.`,
        { retryable: true, details: { retryAfterSeconds: 10, max: this.maxPerUser } },
      );
    }
    const followId = this.followIdOf.get(runId);
    const clients = followId ? (this.following.get(followId)?.clients.size ?? 0) : 0;
    if (clients >= this.maxPerRun) {
      throw new AppError(
        "rate_limited:follows_per_run",
        `This answer is followed by ${this.maxPerRun} clients through this server already. Retry later.`,
        { retryable: true, details: { retryAfterSeconds: 10, max: this.maxPerRun } },
      );
    }
  }

  /**
   * Follows the run `runId` held by the instance `owner` from the client's position `after`, into
   * `sink` (once `admit` let it); returns the function that leaves (the client went away). Clients of
   * one run share this instance's one follow of it: a later one gets what it lacks from the events
   * passed on so far, and the owner is asked again only for one that needs events from before them.
   */
  follow(
    { runId, owner, after, user = null }: { runId: string; owner: string; after: string; user?: string | null },
    sink: FollowSink,
  ): () => void {
    this.admit({ runId, user });
    const client: FollowClient = { sink, position: after, user: user ?? "" };
    const followId = this.followIdOf.get(runId);
    const shared = followId ? this.following.get(followId) : undefined;
    if (shared && shared.owner === owner && !passed(after, shared.start)) {
      // Starts before the shared follow's first event: followed again from there, for everyone.
      this.refollow(followId ?? "", shared, after).clients.add(client);
    } else if (shared && shared.owner === owner) {
      for (const event of shared.log) this.passTo(client, event);
      shared.clients.add(client);
    } else {
      if (followId) this.closeFollowing(followId);
      this.startFollowing(runId, owner, after).clients.add(client);
    }
    return () => this.leave(runId, client);
  }

  private startFollowing(runId: string, owner: string, after: string, clients = new Set<FollowClient>()): Following {
    const followId = crypto.randomUUID();
    const following: Following = { runId, owner, start: after, position: after, passedAny: false, log: [], clients };
    this.following.set(followId, following);
    this.followIdOf.set(runId, followId);
    void this.askOwner(followId, following);
    return following;
  }

  /** The run's follow again from `after`, its clients kept: the earlier one is left. */
  private refollow(followId: string, following: Following, after: string): Following {
    this.following.delete(followId);
    void this.link.send(following.owner, { kind: "unfollow", followId }).catch(() => {});
    return this.startFollowing(following.runId, following.owner, after, following.clients);
  }

  private passTo(client: FollowClient, event: SentRunEvent): void {
    if (passed(client.position, event.id)) return;
    client.position = event.id;
    client.sink.send(event);
  }

  /** Stops following and forwarding (shutdown): the followers' streams close, so their clients reconnect. */
  close(): void {
    clearInterval(this.timer);
    for (const followId of [...this.following.keys()]) this.closeFollowing(followId);
    for (const followId of [...this.forwarding.keys()]) this.stopForwarding(followId);
  }

  answer(body: unknown, from: string): Promise<ServiceAnswer> | undefined {
    const request = followRequest.safeParse(body);
    if (!request.success) return undefined;
    return this.followedBy(request.data, from);
  }

  /** A run's events go only to the registered instance that asked for them itself. */
  private async followedBy(request: FollowRequest, from: string): Promise<ServiceAnswer> {
    if (request.follower !== from || !(await this.registry.registered([from])).has(from)) {
      throw new AppError("forbidden:follower", "Only a registered instance may follow a run, for itself.");
    }
    return this.startForwarding(request);
  }

  receive(body: unknown, from: string): void {
    const message = followMessage.safeParse(body);
    if (!message.success) return;
    const { data } = message;
    if (data.kind === "unfollow") this.stopForwarding(data.followId, from);
    else this.fromOwner(data, from);
  }

  /**
   * Messages sent to this instance while its channel was down are lost: every follow starts again
   * from its last event. Those it could not send meanwhile left gaps: those follows end.
   */
  reconnected(): void {
    for (const [followId, following] of this.following) void this.askOwner(followId, following);
    for (const [followId, forwarding] of this.forwarding) {
      if (forwarding.broken) this.sendEnd(followId, forwarding);
    }
  }

  private async askOwner(followId: string, following: Following): Promise<void> {
    const request: FollowRequest = {
      kind: "follow",
      followId,
      runId: following.runId,
      after: following.position,
      follower: this.link.instanceId,
    };
    let held: boolean;
    try {
      ({ held } = (await this.link.request(following.owner, request)) as { held: boolean });
    } catch {
      // The owner did not answer (it died, or its channel is down): the client reconnects and finds out.
      if (this.following.get(followId) === following) this.closeFollowing(followId);
      return;
    }
    if (held || this.following.get(followId) !== following) return;
    this.forget(followId, following);
    for (const client of following.clients) client.sink.notHeld(client.position);
  }

  private forget(followId: string, following: Following): void {
    this.following.delete(followId);
    if (this.followIdOf.get(following.runId) === followId) this.followIdOf.delete(following.runId);
  }

  private fromOwner(message: Exclude<FollowMessage, { kind: "unfollow" }>, from: string): void {
    const following = this.following.get(message.followId);
    if (!following) {
      // A follow this instance left, whose `unfollow` was lost: the owner stops now.
      if (message.kind === "events")
        void this.link.send(from, { kind: "unfollow", followId: message.followId }).catch(() => {});
      return;
    }
    if (from !== following.owner) return;
    if (message.kind === "end") {
      this.forget(message.followId, following);
      for (const client of following.clients) client.sink.close();
      return;
    }
    let prev = message.prev;
    for (const event of message.events as SentRunEvent[]) {
      // An owner that does not know the client's position replays the run from its first event.
      const fromStart = !following.passedAny && prev === "0" && following.start !== "0";
      const previous = prev;
      prev = event.id;
      if (!fromStart && passed(following.position, event.id)) continue;
      if (!fromStart && previous !== following.position) {
        this.closeFollowing(message.followId);
        return;
      }
      if (fromStart) {
        // As the owner's own client would get it: the run from its start, for every client.
        following.start = "0";
        for (const client of following.clients) client.position = "0";
      }
      following.position = event.id;
      following.passedAny = true;
      following.log.push(event);
      for (const client of following.clients) this.passTo(client, event);
    }
  }

  /** A client went away: the last one of a run's follow leaves it, and the owner stops forwarding. */
  private leave(runId: string, client: FollowClient): void {
    const followId = this.followIdOf.get(runId);
    const following = followId ? this.following.get(followId) : undefined;
    if (!followId || !following?.clients.delete(client) || following.clients.size > 0) return;
    this.unfollow(followId);
  }

  /** The owner stops forwarding this follow. */
  private unfollow(followId: string): void {
    const following = this.following.get(followId);
    if (!following) return;
    this.forget(followId, following);
    void this.link.send(following.owner, { kind: "unfollow", followId }).catch(() => {});
  }

  /** The stream cannot go on: every client's closes, so each reconnects from the last event it has. */
  private closeFollowing(followId: string): void {
    const following = this.following.get(followId);
    this.unfollow(followId);
    for (const client of following?.clients ?? []) client.sink.close();
  }

  /** A follow request: says whether the run is here and, once that reply is on its way, forwards its events after `after`. */
  private startForwarding({ followId, runId, after, follower }: FollowRequest): ServiceAnswer {
    // A follow again with the same id (the follower's channel reconnected) replaces the earlier one,
    // and so does one of the same run by the same follower: it follows each run once.
    this.stopForwarding(followId, follower);
    for (const [otherId, other] of this.forwarding) {
      if (other.runId === runId && other.follower === follower) this.stopForwarding(otherId, follower);
    }
    const live = this.liveRuns.get(runId);
    if (!live) return { value: { held: false } };
    const forwarding: Forwarding = { runId, follower, stop: () => {}, broken: false };
    this.forwarding.set(followId, forwarding);
    return { value: { held: true }, afterReply: () => this.forward(followId, forwarding, live, after) };
  }

  /** Sends the logged events after `after` as one message (chunked when long), then each later event. */
  private forward(followId: string, forwarding: Forwarding, live: LiveRun, after: string): void {
    if (this.forwarding.get(followId) !== forwarding) return; // The follower left before the reply went out.
    let prev: string | undefined;
    const send = (events: SentRunEvent[]) => {
      if (forwarding.broken || events.length === 0) return;
      // The log replays from its start when it does not have `after`.
      prev ??= events[0]?.id === "1" ? "0" : after;
      const message: FollowMessage = { kind: "events", followId, prev, events };
      prev = events.at(-1)?.id;
      this.link.send(forwarding.follower, message).catch(() => this.broke(forwarding));
    };
    let backlog: SentRunEvent[] | undefined = [];
    const sendBacklog = () => {
      for (const part of backlogParts(backlog ?? [], this.maxMessageBytes / 2)) send(part);
      backlog = undefined;
    };
    forwarding.stop = live.subscribe(
      (event) => (backlog ? backlog.push(event) : send([event])),
      () => {
        sendBacklog();
        if (!forwarding.broken) this.sendEnd(followId, forwarding);
      },
      after,
    );
    sendBacklog();
  }

  /** Nothing more goes to the follower but `end`, once this instance's channel listens again. */
  private broke(forwarding: Forwarding): void {
    forwarding.broken = true;
    forwarding.stop();
  }

  private sendEnd(followId: string, forwarding: Forwarding): void {
    this.link.send(forwarding.follower, { kind: "end", followId }).then(
      () => {
        if (this.forwarding.get(followId) === forwarding) this.forwarding.delete(followId);
      },
      () => this.broke(forwarding),
    );
  }

  private stopForwarding(followId: string, follower?: string): void {
    const forwarding = this.forwarding.get(followId);
    if (!forwarding || (follower !== undefined && forwarding.follower !== follower)) return;
    this.forwarding.delete(followId);
    forwarding.stop();
  }

  /** Forwarding to instances that are gone stops; streams following a gone owner close. */
  private async dropGone(): Promise<void> {
    const instances = new Set([
      ...[...this.forwarding.values()].map((forwarding) => forwarding.follower),
      ...[...this.following.values()].map((following) => following.owner),
    ]);
    if (instances.size === 0) return;
    let alive: Set<string>;
    try {
      alive = await this.registry.registered([...instances]);
    } catch (error) {
      console.error("[cluster] could not check which instances are alive; checking again later", error);
      return;
    }
    for (const [followId, forwarding] of this.forwarding) {
      if (!alive.has(forwarding.follower)) this.stopForwarding(followId);
    }
    for (const [followId, following] of this.following) {
      if (!alive.has(following.owner)) this.closeFollowing(followId);
    }
  }
}

/** The backlog cut into parts of at most `maxBytes` of JSON each (an event longer than that goes alone). */
export function backlogParts(events: SentRunEvent[], maxBytes: number): SentRunEvent[][] {
  const parts: SentRunEvent[][] = [];
  let part: SentRunEvent[] = [];
  let bytes = 0;
  for (const event of events) {
    const size = Buffer.byteLength(JSON.stringify(event));
    if (part.length > 0 && bytes + size > maxBytes) {
      parts.push(part);
      part = [];
      bytes = 0;
    }
    part.push(event);
    bytes += size;
  }
  if (part.length > 0) parts.push(part);
  return parts;
}

/** Whether the event `id` comes at or before the event `last` ("N" or "N.k"): the follower passed it on already. */
export function passed(last: string, id: string): boolean {
  const [seq, delta] = eventPlace(id);
  const [lastSeq, lastDelta] = eventPlace(last);
  return seq < lastSeq || (seq === lastSeq && delta <= lastDelta);
}

function eventPlace(id: string): [number, number] {
  const [seq = "0", delta = "0"] = id.split(".");
  return [Number(seq), Number(delta)];
}
