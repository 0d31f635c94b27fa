// Small helpers shared by the maintenance scripts (backup, restore).
import fs from "node:fs";

export class UsageError extends Error {}

/** `[file] [--force]`, nothing else: an unknown option is a mistake worth stopping for. */
export function parseArgs(argv, usage) {
  const positional = [];
  let force = false;
  for (const arg of argv) {
    if (arg === "--force" || arg === "-f") force = true;
    else if (arg === "--help" || arg === "-h") {
      console.log(usage);
      process.exit(0);
    } else if (arg.startsWith("-")) throw new UsageError(`Unknown option ${arg}.\n${usage}`);
    else positional.push(arg);
  }
  if (positional.length !== 1) throw new UsageError(usage);
  return { file: positional[0], force };
}

/** Runs a script's main; expected failures print one message and exit 1, without a stack trace. */
export async function runScript(main) {
  try {
    await main();
  } catch (error) {
    if (error instanceof UsageError) {
      console.error(error.message);
      process.exit(1);
    }
    throw error;
  }
}

export function formatBytes(bytes) {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 ** 2) return `${(bytes / 1024).toFixed(1)} KiB`;
  if (bytes < 1024 ** 3) return `${(bytes / 1024 ** 2).toFixed(1)} MiB`;
  return `${(bytes / 1024 ** 3).toFixed(2)} GiB`;
}

/** A timestamp that sorts and fits in a file name: 2025-01-31T12-00-00Z. */
export function fileTimestamp(date = new Date()) {
  return date
    .toISOString()
    .replace(/\.\d{3}Z$/, "Z")
    .replaceAll(":", "-");
}

/** The size of `file`, which must exist and be a regular file (a UsageError says which it is not). */
export function requireFile(file) {
  let stat;
  try {
    stat = fs.statSync(file);
  } catch {
    throw new UsageError(`${file} does not exist.`);
  }
  if (!stat.isFile()) throw new UsageError(`${file} is not a file.`);
  return stat.size;
}
