import "server-only";
import fs from "node:fs";
import path from "node:path";
import { announceSetupTokenAtStart } from "@/lib/auth/setup-token";
import { getLiveRuns } from "@/lib/chat/chat-service";
import { interruptLiveRuns, interruptLiveRunsAtExit } from "@/lib/chat/shutdown";
import { getCluster, startCluster, stopCluster } from "@/lib/cluster/cluster";
import { closeDb, type Db, getDb } from "@/lib/db/client";
import { removeAbandonedConversations } from "@/lib/db/conversations";
import { countUsers } from "@/lib/db/users";
import { accountsRequired, ConfigError, getConfig } from "@/lib/env-config";
import { indexStoredFiles } from "@/lib/library/indexer";
import { closeServerMcp, getServerMcp } from "@/lib/mcp/server-hub";
import { dataDirError } from "./data-dir-check.mjs";

export const PID_FILE = "server.pid";

/** How often new chats abandoned before their first message are looked for (and once at start). */
const SWEEP_INTERVAL_MS = 60 * 60 * 1000;
/** How long a signal waits for MCP servers to close (stdio servers stopped) before the process ends. */
const MCP_CLOSE_WAIT_MS = 3000;

async function removeAbandonedChats(db: Db, hours: number): Promise<void> {
  try {
    const removed = await removeAbandonedConversations(db, { before: Date.now() - hours * 3600_000 });
    if (removed > 0) console.log(`[cleanup] removed ${removed} new chat(s) left with files and no message`);
  } catch (error) {
    // A busy database now is no reason to stop: the next sweep tries again.
    console.error("[cleanup] could not remove abandoned new chats", error);
  }
}

/** A database URL fit for the log. */
function withoutPassword(url: string): string {
  const parsed = new URL(url);
  parsed.password = "";
  return parsed.toString();
}

/**
 * Runs once when the server starts (from instrumentation.ts): a bad configuration or an unusable
 * DATA_DIR stops it with one clear line; the database is opened so migrations and crash recovery
 * happen before the first request; with PostgreSQL the instance joins the others (lib/cluster/cluster.ts);
 * new chats abandoned with only files are cleared now and hourly; a pid file tells the restore command an instance
 * is running; SIGTERM and exit store running runs as interrupted (docs/architecture.md, "Persistence"),
 * and a signal closes the MCP servers' connections.
 */
export async function startServer(): Promise<void> {
  let config: ReturnType<typeof getConfig>;
  try {
    config = getConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      console.error(error.message);
      process.exit(1);
    }
    throw error;
  }
  if (config.FETCH_ALLOW_PRIVATE.length > 0) {
    console.warn(`[config] FETCH_ALLOW_PRIVATE lets fetches reach: ${config.FETCH_ALLOW_PRIVATE.join(", ")}`);
  }
  console.log(`[config] accounts ${accountsRequired(config) ? "required" : "off (single user on loopback)"}`);
  console.log(
    `[config] store ${config.DATABASE_URL ? `PostgreSQL (${withoutPassword(config.DATABASE_URL)})` : "SQLite in DATA_DIR"}`,
  );
  const dataDir = path.resolve(config.DATA_DIR);
  const unusable = dataDirError(process.env.DATA_DIR, dataDir);
  if (unusable) {
    console.error(unusable);
    process.exit(1);
  }
  let db: Db;
  try {
    db = await getDb();
  } catch (error) {
    const where = config.DATABASE_URL
      ? `PostgreSQL at DATABASE_URL ${withoutPassword(config.DATABASE_URL)}`
      : `the database in DATA_DIR ${dataDir}`;
    console.error(`Cannot open ${where}: ${error instanceof Error ? error.message : error}`);
    process.exit(1);
  }

  if (config.DATABASE_URL) {
    try {
      const cluster = await startCluster(db, getLiveRuns(), { url: config.DATABASE_URL });
      console.log(`[cluster] instance ${cluster.id} registered`);
    } catch (error) {
      console.error(`Cannot register this instance: ${error instanceof Error ? error.message : error}`);
      process.exit(1);
    }
  }

  // A fresh install with accounts: the first sign-up (the admin) needs the token this prints.
  try {
    await announceSetupTokenAtStart(db, config, await countUsers(db));
  } catch (error) {
    console.error(`Cannot store the setup token: ${error instanceof Error ? error.message : error}`);
    process.exit(1);
  }

  // Reads MCP_CONFIG now, so a broken file is logged at start; the app runs without it. Servers connect when used.
  await getServerMcp(db);
  await removeAbandonedChats(db, config.ABANDONED_CHAT_HOURS);
  // Files stored before the library index existed, or that a crash left unindexed: in the background,
  // claimed as this instance's (a process of its own with SQLite).
  void indexStoredFiles(db, config, getCluster()?.id ?? crypto.randomUUID()).catch((error: unknown) =>
    console.error("[library] the start step failed", error),
  );
  setInterval(() => void removeAbandonedChats(db, config.ABANDONED_CHAT_HOURS), SWEEP_INTERVAL_MS).unref();

  const pidFile = path.resolve(config.DATA_DIR, PID_FILE);
  fs.writeFileSync(pidFile, String(process.pid));
  let stopped = false;
  const stop = async () => {
    if (stopped) return;
    stopped = true;
    try {
      const interrupted = await interruptLiveRuns(db, getLiveRuns());
      if (interrupted > 0) console.log(`[shutdown] stored ${interrupted} running answer(s) as interrupted`);
      await stopCluster();
      await closeDb(db);
    } catch (error) {
      console.error("[shutdown] storing the running answers failed", error);
    }
    fs.rmSync(pidFile, { force: true });
  };
  // On `exit` nothing can be awaited: what is stored then is stored at once (lib/chat/shutdown.ts).
  process.once("exit", () => {
    if (stopped) return;
    stopped = true;
    try {
      const interrupted = interruptLiveRunsAtExit(db, getLiveRuns());
      if (interrupted > 0) console.log(`[shutdown] stored ${interrupted} running answer(s) as interrupted at exit`);
    } catch (error) {
      console.error("[shutdown] storing the running answers at exit failed", error);
    }
    fs.rmSync(pidFile, { force: true });
  });
  for (const signal of ["SIGTERM", "SIGINT"] as const) {
    process.once(signal, () => {
      const waited = new Promise((resolve) => setTimeout(resolve, MCP_CLOSE_WAIT_MS).unref());
      void stop()
        .then(() => Promise.race([closeServerMcp(), waited]))
        .catch((error: unknown) => console.error("[shutdown] closing MCP servers failed", error))
        .finally(() => process.exit(0));
    });
  }
}
