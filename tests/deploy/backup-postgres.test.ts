import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { asc, eq } from "drizzle-orm";
import { drizzle } from "drizzle-orm/node-postgres";
import { migrate } from "drizzle-orm/node-postgres/migrator";
import pg from "pg";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import * as schema from "@/lib/db/schema-pg";
import { type TestCluster, testCluster } from "../support/postgres-database";
import type { ThrowawayDatabase } from "../support/throwaway-postgres";
import { runNodeScript } from "./support/run-script";

/** `npm run backup` / `npm run restore` with DATABASE_URL naming PostgreSQL (pg_dump / pg_restore), as child processes. */

let cluster: TestCluster;
const databases: ThrowawayDatabase[] = [];
const pools: pg.Pool[] = [];
const dirs: string[] = [];

beforeAll(async () => {
  cluster = await testCluster();
});

afterEach(async () => {
  for (const pool of pools.splice(0)) await pool.end();
  for (const database of databases.splice(0)) await database.drop();
  for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

afterAll(async () => {
  await cluster?.stop();
});

function tempDir(prefix: string): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `ollama-web-${prefix}-`));
  dirs.push(dir);
  return dir;
}

/** A migrated, empty store. */
async function store() {
  const database = await cluster.createDatabase("backup");
  databases.push(database);
  const pool = new pg.Pool({ connectionString: database.url, max: 2 });
  pools.push(pool);
  const db = drizzle(pool, { schema });
  await migrate(db, { migrationsFolder: path.join(process.cwd(), "drizzle-pg") });
  return { url: database.url, db, pool };
}

type Store = Awaited<ReturnType<typeof store>>;

/** Every byte value, so a restore that mangles binary data shows. */
const FILE_BYTES = Buffer.from(Array.from({ length: 512 }, (_, i) => i % 256));

async function seedConversation({ db }: Store, id: string, title: string) {
  const now = Date.now();
  await db.insert(schema.conversations).values({ id, title, createdAt: now, updatedAt: now });
  await db.insert(schema.messages).values([
    { id: `${id}-q`, conversationId: id, role: "user", content: `Question ${title} ✓ 日本語`, createdAt: now },
    { id: `${id}-a`, conversationId: id, parentId: `${id}-q`, role: "assistant", content: "Answer", createdAt: now },
  ]);
  await db.insert(schema.files).values({
    id: `${id}-f`,
    conversationId: id,
    origin: "upload",
    filename: "bytes.bin",
    mime: "application/octet-stream",
    size: FILE_BYTES.length,
    sha256: "x",
    bytes: FILE_BYTES,
    createdAt: now,
  });
}

/** What "the same contents" means here: the conversations, their messages and files, bytes as base64. */
async function contents({ db }: Store) {
  return {
    conversations: await db.select().from(schema.conversations).orderBy(asc(schema.conversations.id)),
    messages: await db.select().from(schema.messages).orderBy(asc(schema.messages.id)),
    files: (await db.select().from(schema.files).orderBy(asc(schema.files.id))).map((file) => ({
      ...file,
      bytes: file.bytes.toString("base64"),
    })),
  };
}

const backup = (args: string[], url: string, dataDir: string) =>
  runNodeScript("backup.mjs", args, { DATABASE_URL: url, DATA_DIR: dataDir });
const restore = (args: string[], url: string, dataDir: string) =>
  runNodeScript("restore.mjs", args, { DATABASE_URL: url, DATA_DIR: dataDir });

const mode = (file: string) => fs.statSync(file).mode & 0o777;

describe("npm run backup and npm run restore on PostgreSQL", () => {
  it("backs up with pg_dump into an owner-only file and restores it: what changed after the backup is gone", async () => {
    const live = await store();
    await seedConversation(live, "c1", "Kept");
    const before = await contents(live);
    const dataDir = tempDir("pg-data");
    const backups = tempDir("pg-backups");

    const backedUp = await backup([backups], live.url, dataDir);
    expect(backedUp.stderr).toBe("");
    expect(backedUp.code).toBe(0);
    const [file, ...others] = fs.readdirSync(backups);
    expect(others).toEqual([]);
    expect(file).toMatch(/^ollama-web-\d{4}-\d\d-\d\dT\d\d-\d\d-\d\dZ\.pgdump$/);
    const archive = path.join(backups, file as string);
    expect(mode(archive)).toBe(0o600);
    expect(backedUp.stdout).toContain("1 conversation, 2 messages, 1 file");
    // The password is not printed.
    expect(backedUp.stdout).not.toContain(new URL(live.url).password);

    await live.db.delete(schema.conversations).where(eq(schema.conversations.id, "c1"));
    await seedConversation(live, "c2", "Added after the backup");

    const restored = await restore([archive], live.url, dataDir);
    expect(restored.stderr).toBe("");
    expect(restored.code).toBe(0);
    expect(restored.stdout).toContain("1 conversation, 2 messages, 1 file");
    expect(await contents(live)).toEqual(before);

    // The replaced contents are kept, owner-only, in DATA_DIR.
    const [kept, ...more] = fs.readdirSync(dataDir);
    expect(more).toEqual([]);
    expect(kept).toMatch(/^ollama-web\.before-restore-.*\.pgdump$/);
    expect(mode(path.join(dataDir, kept as string))).toBe(0o600);
  });

  it("refuses to overwrite a backup without --force, and a failed backup leaves no file behind", async () => {
    const live = await store();
    await seedConversation(live, "c1", "One");
    const dataDir = tempDir("pg-data");
    const backups = tempDir("pg-backups");
    const target = path.join(backups, "nightly.pgdump");
    fs.writeFileSync(target, "an earlier backup");

    const refused = await backup([target], live.url, dataDir);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain("already exists. Pass --force");
    expect(fs.readFileSync(target, "utf8")).toBe("an earlier backup");

    const gone = new URL(live.url);
    gone.pathname = "/no_such_database";
    const failed = await backup([target, "--force"], gone.toString(), dataDir);
    expect(failed.code).toBe(1);
    expect(failed.stderr).toContain("Cannot connect");
    expect(fs.readdirSync(backups)).toEqual(["nightly.pgdump"]);
    expect(fs.readFileSync(target, "utf8")).toBe("an earlier backup");

    const forced = await backup([target, "--force"], live.url, dataDir);
    expect(forced.code).toBe(0);
    expect(fs.readdirSync(backups)).toEqual(["nightly.pgdump"]);
    expect(fs.readFileSync(target).subarray(0, 5).toString()).toBe("PGDMP");
  });

  it("restore refuses a file that is not a PostgreSQL backup of ollama-web and leaves the data untouched", async () => {
    const live = await store();
    await seedConversation(live, "c1", "Untouched");
    const before = await contents(live);
    const dataDir = tempDir("pg-data");
    const notADump = path.join(tempDir("pg-junk"), "junk.pgdump");
    fs.writeFileSync(notADump, "PGDMP but not really");

    const result = await restore([notADump], live.url, dataDir);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("is not a PostgreSQL backup");
    expect(await contents(live)).toEqual(before);
    expect(fs.readdirSync(dataDir)).toEqual([]);
  });

  it("restore refuses a backup from a newer version of the app unless --force", async () => {
    const live = await store();
    await seedConversation(live, "c1", "From the future");
    await live.pool.query("INSERT INTO drizzle.__drizzle_migrations (hash, created_at) VALUES ('future', $1)", [
      Date.now() + 10 * 365 * 24 * 3600 * 1000,
    ]);
    const dataDir = tempDir("pg-data");
    const archive = path.join(tempDir("pg-backups"), "future.pgdump");
    expect((await backup([archive], live.url, dataDir)).code).toBe(0);

    const target = await store();
    const refused = await restore([archive], target.url, dataDir);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain("newer version of ollama-web");
    expect((await contents(target)).conversations).toEqual([]);

    const forced = await restore([archive, "--force"], target.url, dataDir);
    expect(forced.code).toBe(0);
    expect((await contents(target)).conversations.map((row) => row.title)).toEqual(["From the future"]);
  });

  it("a DATABASE_URL that is not PostgreSQL's stops the scripts with a line naming the variable", async () => {
    const dataDir = tempDir("pg-data");
    const result = await backup([tempDir("pg-backups")], "mysql://127.0.0.1/x", dataDir);
    expect(result.code).toBe(1);
    expect(result.stderr.trim().split("\n")).toEqual([expect.stringContaining("DATABASE_URL")]);
  });
});
