// Where PostgreSQL's programs are: for the throwaway test cluster (tests/support/throwaway-postgres.ts),
// `npm run backup`/`restore` with DATABASE_URL (pg_dump, pg_restore) and scripts/test-prereqs.mjs.
import fs from "node:fs";
import path from "node:path";

const DEBIAN_ROOT = "/usr/lib/postgresql";

/** A regular file this process may run. */
export function isExecutable(file) {
  try {
    fs.accessSync(file, fs.constants.X_OK);
    return fs.statSync(file).isFile();
  } catch {
    return false;
  }
}

/** Debian's versioned directories (/usr/lib/postgresql/<major>/bin), newest first. */
function debianBinDirs() {
  let versions;
  try {
    versions = fs.readdirSync(DEBIAN_ROOT).filter((name) => /^\d+$/.test(name));
  } catch {
    return [];
  }
  return versions.sort((a, b) => Number(b) - Number(a)).map((version) => path.join(DEBIAN_ROOT, version, "bin"));
}

/**
 * The path of a PostgreSQL program (`postgres`, `initdb`, `pg_dump`, `pg_restore`), or undefined:
 * from POSTGRES_BIN_DIR when set (and nowhere else), else Debian's newest version, else PATH.
 */
export function postgresProgram(name) {
  const only = process.env.POSTGRES_BIN_DIR;
  const dirs = only ? [only] : [...debianBinDirs(), ...(process.env.PATH ?? "").split(path.delimiter).filter(Boolean)];
  return dirs.map((dir) => path.join(dir, name)).find(isExecutable);
}
