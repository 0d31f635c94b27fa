import "server-only";
import { z } from "zod";
import type { LiveRuns } from "@/lib/chat/live-run";
import { getConfig } from "@/lib/config";
import type { SentRunEvent } from "@/lib/protocol/run-events";
import type { InstanceLink, LinkService } from "./instance-link";
import type { InstanceRegistry } from "./instance-registry";

/**
 * Following a run through an instance that does not hold it (docs/architecture.md, "Following a run
 * through another instance"). The follower asks the run's owner to `follow` it from the client's
 * position; the owner subscribes on its `LiveRun`, whose log holds every event answer deltas
 * included, and forwards each event to the follower as a one-way message until the run ends
 * (`end`), the follower leaves (`unfollow`) or the follower's instance is no longer registered. The
 * follower passes on only the event that comes next after the client's position: one already
 * passed is dropped (a re-follow after its channel reconnected replays from its last one), and a
 * gap — something lost while a channel was down — closes the stream, so the client reconnects from
 * the last event it has.
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
    kind: z.literal("event"),
    followId: z.string(),
    event: z.object({ event: z.string(), id: z.string(), data: z.unknown() }),
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

interface Following {
  runId: string;
  owner: string;
  /** Where the client started; the last event passed on, once there is one. */
  position: string;
  /** Whether an event was passed on: until then the owner may replay from the start. */
  passedAny: boolean;
  sink: FollowSink;
}

interface Forwarding {
  follower: string;
  stop: () => void;
}

export interface RunFollowsOptions {
  link: InstanceLink;
  /** This instance's runs, which other instances may follow. */
  liveRuns: LiveRuns;
  /** Which instances are still alive: forwarding to a gone follower stops, following a gone owner closes. */
  registry: Pick<InstanceRegistry, "registered">;
  /** How often that is checked; INSTANCE_HEARTBEAT_S by default. */
  checkMs?: number;
}

export class RunFollows implements LinkService {
  /** This instance following other instances' runs, by follow id. */
  private readonly following = new Map<string, Following>();
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
    this.link.attach(this);
    this.timer = setInterval(() => void this.dropGone(), options.checkMs ?? getConfig().INSTANCE_HEARTBEAT_S * 1000);
    this.timer.unref();
  }

  /** How many runs of this instance are forwarded to followers now. */
  get forwardingCount(): number {
    return this.forwarding.size;
  }

  /**
   * Follows the run `runId` held by the instance `owner` from the client's position `after`, into
   * `sink`; returns the function that leaves (the client went away).
   */
  follow({ runId, owner, after }: { runId: string; owner: string; after: string }, sink: FollowSink): () => void {
    const followId = crypto.randomUUID();
    const following: Following = { runId, owner, position: after, passedAny: false, sink };
    this.following.set(followId, following);
    void this.askOwner(followId, following);
    return () => this.leave(followId);
  }

  /** Stops following and forwarding (shutdown): the followers' streams close, so their clients reconnect. */
  close(): void {
    clearInterval(this.timer);
    for (const followId of [...this.following.keys()]) this.closeFollowing(followId);
    for (const followId of [...this.forwarding.keys()]) this.stopForwarding(followId);
  }

  answer(body: unknown): Promise<unknown> | undefined {
    const request = followRequest.safeParse(body);
    if (!request.success) return undefined;
    return Promise.resolve(this.startForwarding(request.data));
  }

  receive(body: unknown, from: string): void {
    const message = followMessage.safeParse(body);
    if (!message.success) return;
    const { data } = message;
    if (data.kind === "unfollow") this.stopForwarding(data.followId, from);
    else this.fromOwner(data, from);
  }

  /** Messages sent to this instance while its channel was down are lost: every follow starts again from its last event. */
  reconnected(): void {
    for (const [followId, following] of this.following) void this.askOwner(followId, following);
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
      this.closeFollowing(followId);
      return;
    }
    if (held || this.following.get(followId) !== following) return;
    this.following.delete(followId);
    following.sink.notHeld(following.position);
  }

  private fromOwner(message: Exclude<FollowMessage, { kind: "unfollow" }>, from: string): void {
    const following = this.following.get(message.followId);
    if (!following) {
      // A follow this instance left, whose `unfollow` was lost: the owner stops now.
      if (message.kind === "event")
        void this.link.send(from, { kind: "unfollow", followId: message.followId }).catch(() => {});
      return;
    }
    if (from !== following.owner) return;
    if (message.kind === "end") {
      this.following.delete(message.followId);
      following.sink.close();
      return;
    }
    const event = message.event as SentRunEvent;
    // An owner that does not know the client's position replays the run from its first event.
    const fromStart = !following.passedAny && event.id === "1";
    const place = fromStart ? "next" : placeAfter(following.position, event.id);
    if (place === "passed") return;
    if (place === "gap") {
      this.leave(message.followId);
      following.sink.close();
      return;
    }
    following.position = event.id;
    following.passedAny = true;
    following.sink.send(event);
  }

  /** The client went away, or the stream cannot go on: the owner stops forwarding. */
  private leave(followId: string): void {
    const following = this.following.get(followId);
    if (!following) return;
    this.following.delete(followId);
    void this.link.send(following.owner, { kind: "unfollow", followId }).catch(() => {});
  }

  private closeFollowing(followId: string): void {
    const following = this.following.get(followId);
    this.leave(followId);
    following?.sink.close();
  }

  /** A follow request: forwards the run's events after `after`, or says the run is not here. */
  private startForwarding({ followId, runId, after, follower }: FollowRequest): { held: boolean } {
    // A follow again with the same id (the follower's channel reconnected) replaces the earlier one.
    this.stopForwarding(followId, follower);
    const live = this.liveRuns.get(runId);
    if (!live) return { held: false };
    const forwarding: Forwarding = { follower, stop: () => {} };
    this.forwarding.set(followId, forwarding);
    // Sent in order on one connection; one that fails leaves a gap the follower notices.
    const stop = live.subscribe(
      (event) => void this.link.send(follower, { kind: "event", followId, event }).catch(() => {}),
      () => {
        if (this.forwarding.get(followId) === forwarding) this.forwarding.delete(followId);
        void this.link.send(follower, { kind: "end", followId }).catch(() => {});
      },
      after,
    );
    forwarding.stop = stop;
    return { held: true };
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

/**
 * Where the event `id` stands after the event `last`: the one that comes next (the next delta
 * `N.k+1`, or the next stored event `N+1`), one already passed, or a later one after a gap.
 */
export function placeAfter(last: string, id: string): "next" | "passed" | "gap" {
  const [seq, delta] = eventPlace(id);
  const [lastSeq, lastDelta] = eventPlace(last);
  if ((seq === lastSeq && delta === lastDelta + 1) || (seq === lastSeq + 1 && delta === 0)) return "next";
  if (seq < lastSeq || (seq === lastSeq && delta <= lastDelta)) return "passed";
  return "gap";
}

function eventPlace(id: string): [number, number] {
  const [seq = "0", delta = "0"] = id.split(".");
  return [Number(seq), Number(delta)];
}
