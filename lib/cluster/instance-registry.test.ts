import path from "node:path";
import { drizzle } from "drizzle-orm/node-postgres";
import { migrate } from "drizzle-orm/node-postgres/migrator";
import pg from "pg";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { freshPostgresDatabase } from "@/tests/support/postgres-database";
import type { ThrowawayDatabase } from "@/tests/support/throwaway-postgres";
import { InstanceRegistry, instanceChannel, MISSED_HEARTBEATS } from "./instance-registry";
import { NotifyChannel } from "./notify-channel";

const HEARTBEAT_MS = 5000;
let database: ThrowawayDatabase;
let pool: pg.Pool;

beforeAll(async () => {
  database = await freshPostgresDatabase("instance_registry");
  pool = new pg.Pool({ connectionString: database.url, max: 4 });
  await migrate(drizzle(pool), { migrationsFolder: path.join(process.cwd(), "drizzle-pg") });
  await pool.query(
    "INSERT INTO conversations (id, title, created_at, updated_at) VALUES ('c1', 't', 1, 1), ('c2', 't', 1, 1)",
  );
});

beforeEach(async () => {
  await pool.query("DELETE FROM runs");
  await pool.query("DELETE FROM instances");
});

afterAll(async () => {
  await pool?.end();
  await database?.drop();
});

const registry = (id: string) => new InstanceRegistry(pool, { id, heartbeatMs: HEARTBEAT_MS });

/** Moves an instance's last heartbeat `beats` heartbeats into the past (no waiting in tests). */
async function silentFor(id: string, beats: number) {
  await pool.query("UPDATE instances SET seen_at = seen_at - $2::bigint WHERE id = $1", [id, beats * HEARTBEAT_MS]);
}

async function seenAt(id: string): Promise<number | undefined> {
  const { rows } = await pool.query<{ seen_at: string }>("SELECT seen_at FROM instances WHERE id = $1", [id]);
  return rows[0] ? Number(rows[0].seen_at) : undefined;
}

async function startRun(id: string, conversationId: string, instanceId: string | null) {
  await pool.query(
    "INSERT INTO runs (id, conversation_id, status, mode, model, started_at, instance_id) VALUES ($1, $2, 'running', 'native', 'm', 1, $3)",
    [id, conversationId, instanceId],
  );
}

describe("instance registry", () => {
  it("a heartbeat stamps the instance as seen, in the database's clock", async () => {
    const a = registry("a");
    await a.register();
    await silentFor("a", 1);
    const before = await seenAt("a");
    expect(await a.beat()).toBe("alive");
    const after = await seenAt("a");
    expect(after).toBeGreaterThan((before ?? 0) + HEARTBEAT_MS - 1);
    const { rows } = await pool.query("SELECT (extract(epoch from clock_timestamp()) * 1000)::bigint AS now");
    expect(Math.abs(Number(rows[0].now) - (after ?? 0))).toBeLessThan(HEARTBEAT_MS);
  });

  it(`an instance not seen for ${MISSED_HEARTBEATS} heartbeats is dead: a survivor claims it, one silent for less is alive`, async () => {
    const [survivor, dead, slow] = [registry("survivor"), registry("dead"), registry("slow")];
    await Promise.all([survivor.register(), dead.register(), slow.register()]);
    await silentFor("dead", MISSED_HEARTBEATS + 0.1);
    await silentFor("slow", MISSED_HEARTBEATS - 0.5);
    expect(await survivor.claimDead()).toEqual(["dead"]);
    expect(await seenAt("dead")).toBeUndefined();
    expect(await seenAt("slow")).toBeDefined();
    expect(await survivor.claimDead()).toEqual([]);
  });

  it("an instance never claims itself, however long its own heartbeat is late", async () => {
    const alone = registry("alone");
    await alone.register();
    await silentFor("alone", 10 * MISSED_HEARTBEATS);
    expect(await alone.claimDead()).toEqual([]);
    expect(await seenAt("alone")).toBeDefined();
  });

  it("of survivors claiming at the same moment, each dead instance goes to exactly one", async () => {
    const survivors = ["s1", "s2", "s3", "s4"].map(registry);
    await Promise.all(survivors.map((survivor) => survivor.register()));
    const dead = ["d1", "d2", "d3"].map(registry);
    await Promise.all(dead.map((instance) => instance.register()));
    await Promise.all(dead.map((instance) => silentFor(instance.id, MISSED_HEARTBEATS + 1)));
    const claims = await Promise.all(survivors.map((survivor) => survivor.claimDead()));
    expect(claims.flat().sort()).toEqual(["d1", "d2", "d3"]);
  });

  it("an instance declared dead finds out at its next heartbeat and is registered again", async () => {
    const [survivor, stalled] = [registry("survivor"), registry("stalled")];
    await Promise.all([survivor.register(), stalled.register()]);
    await silentFor("stalled", MISSED_HEARTBEATS + 1);
    await survivor.claimDead();
    expect(await stalled.beat()).toBe("declared_dead");
    expect(await seenAt("stalled")).toBeDefined();
    expect(await stalled.beat()).toBe("alive");
  });

  it("the running runs of a claimed instance, and of none, are orphaned; a live instance's and finished ones are not", async () => {
    const [survivor, dead] = [registry("survivor"), registry("dead")];
    await Promise.all([survivor.register(), dead.register()]);
    await startRun("r-live", "c1", "survivor");
    await startRun("r-dead", "c2", "dead");
    expect(await survivor.orphanedRuns()).toEqual([]);

    await silentFor("dead", MISSED_HEARTBEATS + 1);
    await survivor.claimDead();
    expect(await survivor.orphanedRuns()).toEqual(["r-dead"]);

    await pool.query("UPDATE runs SET status = 'interrupted' WHERE id = 'r-dead'");
    await startRun("r-old", "c2", null);
    expect(await survivor.orphanedRuns()).toEqual(["r-old"]);
  });

  it("leaving at a clean shutdown removes only its own row", async () => {
    const [a, b] = [registry("a"), registry("b")];
    await Promise.all([a.register(), b.register()]);
    await a.deregister();
    expect([await seenAt("a"), typeof (await seenAt("b"))]).toEqual([undefined, "number"]);
  });

  it("an instance's channel name is one a NotifyChannel listens on, whatever its id", async () => {
    const id = crypto.randomUUID();
    const channel = await NotifyChannel.open({ url: database.url, channel: instanceChannel(id), onMessage: () => {} });
    await channel.close();
    expect(instanceChannel(id)).not.toBe(instanceChannel(crypto.randomUUID()));
  });
});
