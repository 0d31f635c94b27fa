import "server-only";
import type pg from "pg";
import { getConfig } from "@/lib/env-config";

/**
 * The app instances sharing one PostgreSQL (docs/cluster.md, "Several app instances"): each
 * keeps a row in `instances` and stamps `seen_at` on every heartbeat; one not seen for
 * `MISSED_HEARTBEATS` heartbeats is dead, and a survivor claims it (deletes its row), which leaves
 * its running runs owned by no instance: `orphanedRuns` lists them for recovery. Times are the
 * database's clock, so instances on different machines need not agree on the time.
 */

export const MISSED_HEARTBEATS = 3;

/** The database's clock, in Unix ms like every stored time. */
const DB_NOW = "(extract(epoch from clock_timestamp()) * 1000)::bigint";

type Queryable = Pick<pg.Pool, "query">;

/** The `LISTEN/NOTIFY` channel an instance listens on: a plain identifier made from its id. */
export function instanceChannel(instanceId: string): string {
  return `instance_${instanceId.replace(/[^a-z0-9]/gi, "").toLowerCase()}`;
}

export class InstanceRegistry {
  readonly id: string;
  private readonly heartbeatMs: number;

  constructor(
    private readonly db: Queryable,
    { id = crypto.randomUUID(), heartbeatMs = getConfig().INSTANCE_HEARTBEAT_S * 1000 } = {},
  ) {
    this.id = id;
    this.heartbeatMs = heartbeatMs;
  }

  /** Enters the registry (again, after being declared dead). */
  async register(): Promise<void> {
    await this.db.query(
      `INSERT INTO instances (id, started_at, seen_at) VALUES ($1, ${DB_NOW}, ${DB_NOW})
         ON CONFLICT (id) DO UPDATE SET seen_at = EXCLUDED.seen_at`,
      [this.id],
    );
  }

  /**
   * Stamps this instance as seen. "declared_dead" when its row was gone: it stalled past
   * `MISSED_HEARTBEATS` and a survivor recovered its runs, so it must drop them; it is registered again.
   */
  async beat(): Promise<"alive" | "declared_dead"> {
    const { rowCount } = await this.db.query(`UPDATE instances SET seen_at = ${DB_NOW} WHERE id = $1`, [this.id]);
    if (rowCount) return "alive";
    await this.register();
    return "declared_dead";
  }

  /**
   * Removes the instances not seen for `MISSED_HEARTBEATS` heartbeats, never this one, and says
   * which: of survivors claiming at once, each dead instance goes to exactly one.
   */
  async claimDead(): Promise<string[]> {
    const { rows } = await this.db.query<{ id: string }>(
      `DELETE FROM instances WHERE id <> $1 AND seen_at < ${DB_NOW} - $2::bigint RETURNING id`,
      [this.id, MISSED_HEARTBEATS * this.heartbeatMs],
    );
    return rows.map((row) => row.id).sort();
  }

  /** The other instances seen within `MISSED_HEARTBEATS` heartbeats: alive, as far as anyone can tell. */
  async othersAlive(): Promise<string[]> {
    const { rows } = await this.db.query<{ id: string }>(
      `SELECT id FROM instances WHERE id <> $1 AND seen_at >= ${DB_NOW} - $2::bigint ORDER BY id`,
      [this.id, MISSED_HEARTBEATS * this.heartbeatMs],
    );
    return rows.map((row) => row.id);
  }

  /** Running runs owned by no registered instance (a dead one, or none: an earlier release's). */
  orphanedRuns(): Promise<string[]> {
    return orphanedRuns(this.db);
  }

  /** Which of `ids` are registered instances (alive, or not yet found dead). */
  async registered(ids: string[]): Promise<Set<string>> {
    const { rows } = await this.db.query<{ id: string }>("SELECT id FROM instances WHERE id = ANY($1::text[])", [ids]);
    return new Set(rows.map((row) => row.id));
  }

  /** Leaves the registry at a clean shutdown (its runs are already stored as interrupted). */
  async deregister(): Promise<void> {
    await this.db.query("DELETE FROM instances WHERE id = $1", [this.id]);
  }
}

/** Running runs owned by no registered instance: what a start, or a survivor's sweep, recovers. */
export async function orphanedRuns(db: Queryable): Promise<string[]> {
  const { rows } = await db.query<{ id: string }>(
    // A null owner matches no row either.
    `SELECT id FROM runs WHERE status = 'running'
       AND NOT EXISTS (SELECT 1 FROM instances WHERE instances.id = runs.instance_id)
       ORDER BY started_at, id`,
  );
  return rows.map((row) => row.id);
}
