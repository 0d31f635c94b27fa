import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { postgresProgram } from "../../scripts/lib/postgres-bin.mjs";

/**
 * A PostgreSQL cluster of its own for tests and benchmarks: `initdb` into a temp directory, the
 * server on a free 127.0.0.1 port (its socket in that directory too), stopped by its PID. Root may
 * not run PostgreSQL, so as root it runs as `postgres` (Debian's package creates it) or `nobody`.
 */

export interface ThrowawayDatabase {
  name: string;
  url: string;
  /** Removes the database, closing whatever still uses it. */
  drop(): Promise<void>;
}

export interface ThrowawayPostgres {
  /** postgres://… for `database` (default: the cluster's own `postgres` database). */
  url(database?: string): string;
  createDatabase(prefix?: string): Promise<ThrowawayDatabase>;
  /** Stops the server (fast shutdown) and removes its directory. */
  stop(): Promise<void>;
}

const SUPERUSER = "postgres";
const READY_TIMEOUT_MS = 30_000;

function requireProgram(name: string): string {
  const program = postgresProgram(name);
  if (!program) {
    throw new Error(
      `PostgreSQL's ${name} was not found (looked in /usr/lib/postgresql/*/bin and PATH; POSTGRES_BIN_DIR overrides). ` +
        "Install it with: apt-get install -y postgresql",
    );
  }
  return program;
}

/** The unprivileged account to run the server as when we are root; undefined otherwise. */
function serverAccount(): { uid: number; gid: number } | undefined {
  if (process.getuid?.() !== 0) return undefined;
  for (const name of [SUPERUSER, "nobody"]) {
    const uid = spawnSync("id", ["-u", name], { encoding: "utf8" });
    const gid = spawnSync("id", ["-g", name], { encoding: "utf8" });
    if (uid.status === 0 && gid.status === 0) return { uid: Number(uid.stdout), gid: Number(gid.stdout) };
  }
  throw new Error("Running as root, and neither a postgres nor a nobody account exists to run PostgreSQL as.");
}

/** `program args` as that account (setpriv execs, so the PID is the program's own). */
function asAccount(account: { uid: number; gid: number } | undefined, program: string, args: string[]) {
  if (!account) return { command: program, args };
  return {
    command: "setpriv",
    args: [`--reuid=${account.uid}`, `--regid=${account.gid}`, "--clear-groups", program, ...args],
  };
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

function exited(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => child.once("exit", () => resolve()));
}

export async function startThrowawayPostgres(): Promise<ThrowawayPostgres> {
  const initdb = requireProgram("initdb");
  const postgres = requireProgram("postgres");
  const account = serverAccount();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "ollama-web-pg-"));
  const dataDir = path.join(dir, "data");
  const password = randomBytes(18).toString("base64url");
  const passwordFile = path.join(dir, "password");
  fs.writeFileSync(passwordFile, `${password}\n`, { mode: 0o600 });
  if (account) {
    fs.chownSync(dir, account.uid, account.gid);
    fs.chownSync(passwordFile, account.uid, account.gid);
  }

  let server: ChildProcess | undefined;
  try {
    const init = asAccount(account, initdb, [
      `--pgdata=${dataDir}`,
      `--username=${SUPERUSER}`,
      `--pwfile=${passwordFile}`,
      "--auth=scram-sha-256",
      "--encoding=UTF8",
      "--locale=C",
      "--no-sync",
    ]);
    const initResult = spawnSync(init.command, init.args, { encoding: "utf8" });
    if (initResult.status !== 0) throw new Error(`initdb failed: ${initResult.stderr || initResult.stdout}`);
    fs.rmSync(passwordFile);

    const port = await freePort();
    // Durability is worth nothing in a cluster deleted at the end: fsync off makes tests faster.
    const run = asAccount(account, postgres, [
      "-D",
      dataDir,
      "-h",
      "127.0.0.1",
      "-p",
      String(port),
      "-k",
      dir,
      "-c",
      "fsync=off",
      "-c",
      "synchronous_commit=off",
      "-c",
      "full_page_writes=off",
      "-c",
      "max_connections=200",
    ]);
    const child = spawn(run.command, run.args, { stdio: ["ignore", "ignore", "pipe"] });
    server = child;
    let log = "";
    child.stderr?.on("data", (chunk: Buffer) => {
      log = (log + chunk.toString()).slice(-4000);
    });

    const url = (database = SUPERUSER) =>
      `postgres://${SUPERUSER}:${encodeURIComponent(password)}@127.0.0.1:${port}/${encodeURIComponent(database)}`;
    await waitUntilReady(url(), child, () => log);

    return {
      url,
      createDatabase: (prefix) => createDatabase(url(), prefix),
      async stop() {
        // SIGINT: fast shutdown (disconnects clients, no waiting for them to leave).
        if (child.exitCode === null && child.signalCode === null) child.kill("SIGINT");
        await exited(child);
        fs.rmSync(dir, { recursive: true, force: true });
      },
    };
  } catch (error) {
    if (server && server.exitCode === null) {
      server.kill("SIGKILL");
      await exited(server);
    }
    fs.rmSync(dir, { recursive: true, force: true });
    throw error;
  }
}

async function asSuperuser<T>(adminUrl: string, body: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    return await body(client);
  } finally {
    await client.end();
  }
}

/** A new empty database in the cluster `adminUrl` (a superuser's URL) points at. */
export async function createDatabase(adminUrl: string, prefix = "test"): Promise<ThrowawayDatabase> {
  const name = `${prefix.replace(/[^a-z0-9_]/gi, "_").toLowerCase()}_${randomBytes(6).toString("hex")}`;
  await asSuperuser(adminUrl, (client) => client.query(`CREATE DATABASE "${name}"`));
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return {
    name,
    url: url.toString(),
    drop: async () => {
      await asSuperuser(adminUrl, (client) => client.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`));
    },
  };
}

async function waitUntilReady(url: string, child: ChildProcess, log: () => string): Promise<void> {
  const deadline = Date.now() + READY_TIMEOUT_MS;
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null) {
      throw new Error(`postgres exited while starting:\n${log()}`);
    }
    const client = new pg.Client({ connectionString: url });
    try {
      await client.connect();
      await client.end();
      return;
    } catch (error) {
      await client.end().catch(() => {});
      if (Date.now() > deadline) throw new Error(`postgres did not accept connections: ${error}\n${log()}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}
