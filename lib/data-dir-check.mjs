// Whether DATA_DIR can hold the database, checked before anything else starts, so an unusable
// directory stops the server with one line instead of leaving it answering 500 to every request.
//
// Plain JavaScript so that `npm start` (scripts/start.mjs) runs the same check before it builds or
// serves; lib/server-start.ts runs it for `next start` and `next dev`.
import fs from "node:fs";
import path from "node:path";

/** @param {unknown} error */
function reason(error) {
  const code = /** @type {{ code?: unknown }} */ (error)?.code;
  switch (code) {
    case "EROFS":
      return "read-only file system";
    case "EACCES":
    case "EPERM":
      return "permission denied";
    case "ENOTDIR":
      return "a parent is not a directory";
    case "ENOSPC":
      return "no space left on the device";
    default:
      return typeof code === "string" ? code : error instanceof Error ? error.message : String(error);
  }
}

/**
 * What makes `dir` unusable as the data directory, or null: it must be a directory (created if
 * missing) in which this process can create files.
 * @param {string} dir
 * @returns {string | null}
 */
export function dataDirProblem(dir) {
  let stat;
  try {
    stat = fs.statSync(dir);
  } catch {
    try {
      fs.mkdirSync(dir, { recursive: true });
      stat = fs.statSync(dir);
    } catch (error) {
      return `cannot be created (${reason(error)})`;
    }
  }
  if (!stat.isDirectory()) return "is not a directory";
  const probe = path.join(dir, `.write-check-${process.pid}`);
  try {
    fs.writeFileSync(probe, "");
    fs.rmSync(probe, { force: true });
  } catch (error) {
    return `is not writable (${reason(error)})`;
  }
  return null;
}

/**
 * The one line that stops the server when DATA_DIR is unusable, or null when it is fine.
 * @param {string | undefined} value DATA_DIR as set (undefined or "" for the default)
 * @param {string} dir the directory it resolves to
 * @returns {string | null}
 */
export function dataDirError(value, dir) {
  const problem = dataDirProblem(dir);
  if (!problem) return null;
  return `Invalid configuration: DATA_DIR ${problem}: ${dir}${value && value !== dir ? ` (got "${value}")` : ""}`;
}
