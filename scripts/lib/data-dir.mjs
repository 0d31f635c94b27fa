// Where the app keeps its data, resolved the way the server resolves it (lib/env-config.ts, lib/db/client.ts).
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

export const projectRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");

/** The same name as DB_FILENAME in lib/db/client.ts (tests/deploy/backup.test.ts keeps them equal). */
export const DB_FILENAME = "ollama-web.sqlite";

/** Written by the running server with its PID. */
export const PID_FILENAME = "server.pid";

/** Loads `.env` next to package.json, as `npm start` does; variables already set win. */
export function loadDotEnv() {
  try {
    process.loadEnvFile(path.join(projectRoot, ".env"));
  } catch {
    // no .env: the environment alone configures the app
  }
}

/** DATA_DIR as an absolute path; a relative one is taken from the project root, the server's working directory. */
export function dataDir() {
  return path.resolve(projectRoot, process.env.DATA_DIR || "./data");
}

export function databasePath() {
  return path.join(dataDir(), DB_FILENAME);
}

/**
 * The PID of the server using this data directory, or undefined. A pid file whose process is gone
 * is left over from a crash and does not count.
 */
export function runningServerPid(dir = dataDir()) {
  let text;
  try {
    text = fs.readFileSync(path.join(dir, PID_FILENAME), "utf8");
  } catch {
    return undefined;
  }
  const pid = Number.parseInt(text.trim(), 10);
  if (!Number.isInteger(pid) || pid <= 0) return undefined;
  try {
    process.kill(pid, 0);
    return pid;
  } catch (error) {
    // EPERM: the process exists but belongs to another user (the service account).
    return error.code === "EPERM" ? pid : undefined;
  }
}
