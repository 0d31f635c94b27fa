import "server-only";
import type { LiveRuns } from "@/lib/chat/live-run";
import { dropLiveRuns } from "@/lib/chat/shutdown";
import { type Db, recoverInterruptedRuns } from "@/lib/db/client";
import { postgresPool } from "@/lib/db/postgres";
import { runningRunInstance } from "@/lib/db/runs";
import { getConfig } from "@/lib/env-config";
import { processSlot } from "@/lib/util/process-singleton";
import { InstanceLink } from "./instance-link";
import { InstanceRegistry, MISSED_HEARTBEATS } from "./instance-registry";
import { type OwnerRequest, ownerRequestHandler } from "./owner-requests";
import { RunFollows } from "./run-follow";

/**
 * This app instance among those sharing one PostgreSQL (docs/cluster.md, "Several app
 * instances"): its row in the registry, its link to the others (answering their stops and
 * follow-ups with its own live runs) and its heartbeat, which also sweeps the runs of dead
 * instances. With SQLite there is none (`getCluster()` is undefined). Without CLUSTER_SECRET the
 * instance must be the only one: it signs with a key no other process has, and refuses to start
 * while another instance is alive.
 */

export interface ClusterOptions {
  url: string;
  id?: string;
  /** INSTANCE_HEARTBEAT_S by default. */
  heartbeatMs?: number;
  /** INSTANCE_REQUEST_TIMEOUT_S by default. */
  requestTimeoutMs?: number;
}

export class Cluster {
  private timer: NodeJS.Timeout | undefined;
  private beating: Promise<void> | undefined;
  private sweeping: Promise<void> | undefined;

  private constructor(
    private readonly db: Db,
    private readonly liveRuns: LiveRuns,
    private readonly registry: InstanceRegistry,
    readonly link: InstanceLink,
    /** Runs followed through this instance, and this instance's runs followed through others. */
    readonly follows: RunFollows,
  ) {}

  /** This instance's id: its runs' owner (`runs.instance_id`) and the name of its channel. */
  get id(): string {
    return this.registry.id;
  }

  /**
   * Registers the instance, opens its link, sweeps once and then on every heartbeat. The live runs
   * are this instance's: their runs are stored with its id.
   */
  static async start(db: Db, liveRuns: LiveRuns, options: ClusterOptions): Promise<Cluster> {
    const pool = postgresPool(db);
    if (!pool) throw new Error("Several app instances need the PostgreSQL store.");
    const config = getConfig();
    const heartbeatMs = options.heartbeatMs ?? config.INSTANCE_HEARTBEAT_S * 1000;
    const registry = new InstanceRegistry(pool, { id: options.id, heartbeatMs });
    if (!config.CLUSTER_SECRET) {
      // Its messages would be signed with a key of its own, and the others' dropped: it must be alone.
      const others = await registry.othersAlive();
      if (others.length > 0) {
        throw new Error(
          `CLUSTER_SECRET is unset, but another app instance (${others.join(", ")}) uses this database: set the same CLUSTER_SECRET on every instance (an instance that crashed counts until it misses ${MISSED_HEARTBEATS} heartbeats)`,
        );
      }
      console.warn("[cluster] CLUSTER_SECRET is unset: this instance runs alone and takes no other instance's message");
    }
    await registry.register();
    let link: InstanceLink;
    try {
      link = await InstanceLink.open({
        url: options.url,
        instanceId: registry.id,
        handle: ownerRequestHandler(db, liveRuns),
        timeoutMs: options.requestTimeoutMs ?? config.INSTANCE_REQUEST_TIMEOUT_S * 1000,
      });
    } catch (error) {
      await registry.deregister();
      throw error;
    }
    liveRuns.instanceId = registry.id;
    const follows = new RunFollows({ link, liveRuns, registry, checkMs: heartbeatMs });
    const cluster = new Cluster(db, liveRuns, registry, link, follows);
    await cluster.heartbeat();
    cluster.timer = setInterval(() => void cluster.heartbeat(), heartbeatMs);
    cluster.timer.unref();
    return cluster;
  }

  /**
   * One heartbeat: says this instance is alive (declared dead meanwhile, it drops its runs: a
   * survivor stored them, and those it did not, started since, are stored interrupted) and sweeps:
   * claims the instances that stopped beating and recovers the runs no instance owns. The beat and
   * the sweep each go one at a time, neither waiting for the other. A failure is logged; the next
   * heartbeat tries again.
   */
  heartbeat(): Promise<void> {
    // A slow sweep (a long recovery) must not hold the beat back and get this instance declared dead.
    this.beating ??= this.beat()
      .catch((error: unknown) => console.error("[cluster] heartbeat failed; retrying at the next one", error))
      .finally(() => {
        this.beating = undefined;
      });
    this.sweeping ??= this.sweep()
      .catch((error: unknown) => console.error("[cluster] sweep failed; retrying at the next heartbeat", error))
      .finally(() => {
        this.sweeping = undefined;
      });
    return Promise.all([this.beating, this.sweeping]).then(() => {});
  }

  private async beat(): Promise<void> {
    if ((await this.registry.beat()) === "declared_dead") {
      // A run stored after the survivor's sweep is not orphaned (this instance is registered again):
      // it is stored interrupted here, as the survivor stored the others.
      const dropped = dropLiveRuns(this.liveRuns);
      const recovered = await recoverInterruptedRuns(this.db, { runIds: dropped });
      console.warn(
        `[cluster] this instance was declared dead (no heartbeat for too long); dropped ${dropped.length} running answer(s), ${dropped.length - recovered} stored by another instance`,
      );
    }
  }

  private async sweep(): Promise<void> {
    const dead = await this.registry.claimDead();
    if (dead.length > 0) console.warn(`[cluster] instance(s) stopped answering: ${dead.join(", ")}`);
    const recovered = await recoverInterruptedRuns(this.db, { runIds: await this.registry.orphanedRuns() });
    if (recovered > 0) console.log(`[cluster] stored ${recovered} answer(s) of a dead instance as interrupted`);
  }

  /** The instance holding the conversation's running run, on whichever instance, from the database; null: none. */
  async runOwnerOf(conversationId: string): Promise<string | null> {
    return runningRunInstance(this.db, conversationId);
  }

  /**
   * A stop or follow-up answered by the instance holding the conversation's run: `here` when this
   * one does or nothing runs anywhere (it then refuses as a single instance does); otherwise the
   * request goes to the owner and its verdict is returned or thrown (503 when none comes in time).
   */
  async onRunOwner<T>(request: OwnerRequest, here: () => T | Promise<T>): Promise<T> {
    if (this.liveRuns.forConversation(request.conversationId)) return here();
    const owner = await this.runOwnerOf(request.conversationId);
    if (!owner || owner === this.id) return here();
    return (await this.link.request(owner, request)) as T;
  }

  /** Leaves at a clean shutdown, once this instance's runs are stored: no more heartbeats, out of the registry, link closed. */
  async stop(): Promise<void> {
    clearInterval(this.timer);
    await Promise.all([this.beating, this.sweeping]);
    await this.registry.deregister();
    this.follows.close();
    await this.link.close();
  }
}

const processCluster = processSlot<Cluster>("cluster");

/** This process's instance once started; undefined with SQLite and before the start. */
export function getCluster(): Cluster | undefined {
  return processCluster.get();
}

/** A stop or follow-up answered by whichever instance holds the conversation's run (`Cluster.onRunOwner`); `here` without a cluster. */
export function onRunOwner<T>(request: OwnerRequest, here: () => T | Promise<T>): Promise<T> {
  const cluster = getCluster();
  return cluster ? cluster.onRunOwner(request, here) : Promise.resolve(here());
}

/** Starts this process's instance (lib/server-start.ts; tests). */
export async function startCluster(db: Db, liveRuns: LiveRuns, options: ClusterOptions): Promise<Cluster> {
  const cluster = await Cluster.start(db, liveRuns, options);
  processCluster.set(cluster);
  return cluster;
}

/** Stops this process's instance, if started (clean shutdown; tests). */
export async function stopCluster(): Promise<void> {
  const cluster = processCluster.get();
  processCluster.set(undefined);
  await cluster?.stop();
}
