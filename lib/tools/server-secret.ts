import "server-only";
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { getConfig } from "@/lib/env-config";

const SECRET_FILE = "server-secret";

/**
 * The server's secret (continuation-token MACs), kept in DATA_DIR so tokens survive a restart.
 * Created on first use with owner-only permissions.
 */
export function loadServerSecret(dataDir = getConfig().DATA_DIR): Buffer {
  const file = path.resolve(dataDir, SECRET_FILE);
  try {
    return Buffer.from(fs.readFileSync(file, "utf8").trim(), "base64");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
  }
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const secret = randomBytes(32);
  try {
    fs.writeFileSync(file, secret.toString("base64"), { mode: 0o600, flag: "wx" });
    return secret;
  } catch (error) {
    // Another process created it first: use theirs.
    if ((error as NodeJS.ErrnoException).code === "EEXIST") return loadServerSecret(dataDir);
    throw error;
  }
}

let cached: { dataDir: string; secret: Buffer } | undefined;

export function getServerSecret(): Buffer {
  const dataDir = getConfig().DATA_DIR;
  if (cached?.dataDir !== dataDir) cached = { dataDir, secret: loadServerSecret(dataDir) };
  return cached.secret;
}
