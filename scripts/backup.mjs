// `npm run backup -- <file or directory> [--force]`: a consistent copy of the database, taken while the
// app runs (SQLite's online backup API; pg_dump when DATABASE_URL names PostgreSQL). A directory gets a
// time-stamped file. See docs/deploy.md.
import fs from "node:fs";
import path from "node:path";
import { fileTimestamp, formatBytes, parseArgs, runScript, UsageError } from "./lib/cli.mjs";
import { databasePath, dataDir, loadDotEnv } from "./lib/data-dir.mjs";
import { copyDatabase, describeContents, inspectDatabase } from "./lib/database.mjs";
import { DUMP_SUFFIX, describeUrl, dumpDatabase, postgresUrl } from "./lib/postgres-dump.mjs";

const USAGE = `Usage: npm run backup -- <file or directory> [--force]
  Copies $DATA_DIR/ollama-web.sqlite (DATA_DIR from the environment or .env) while the app runs, or,
  when DATABASE_URL names a PostgreSQL database, dumps it with pg_dump (custom format).
  A directory receives ollama-web-<UTC time>.sqlite (.pgdump). --force replaces an existing file.`;

await runScript(async () => {
  loadDotEnv();
  const { file, force } = parseArgs(process.argv.slice(2), USAGE);
  const url = postgresUrl();
  const source = url ? describeUrl(url) : databasePath();
  if (!url && !fs.existsSync(source)) {
    throw new UsageError(`No database at ${source}. Is DATA_DIR (${dataDir()}) the app's data directory?`);
  }

  let destination = path.resolve(file);
  if (fs.statSync(destination, { throwIfNoEntry: false })?.isDirectory()) {
    destination = path.join(destination, `ollama-web-${fileTimestamp()}${url ? DUMP_SUFFIX : ".sqlite"}`);
  }
  if (destination === source) throw new UsageError("The backup cannot be the database itself.");
  if (!fs.existsSync(path.dirname(destination))) {
    throw new UsageError(`The directory ${path.dirname(destination)} does not exist.`);
  }
  if (fs.existsSync(destination) && !force) {
    throw new UsageError(`${destination} already exists. Pass --force to replace it.`);
  }

  // Written beside the destination and renamed at the end: a failed backup never leaves half a file
  // under the backup's name, nor destroys the file --force replaces.
  const partial = `${destination}.partial-${process.pid}`;
  let summary;
  try {
    if (url) {
      summary = await dumpDatabase(url, partial);
    } else {
      await copyDatabase(source, partial);
      // It holds every conversation, file and account (password hashes included): owner only.
      fs.chmodSync(partial, 0o600);
      summary = inspectDatabase(partial);
    }
  } catch (error) {
    fs.rmSync(partial, { force: true });
    throw error;
  }
  // A -wal/-shm left beside a replaced file would be replayed into the new one.
  for (const suffix of ["-wal", "-shm", "-journal"]) fs.rmSync(destination + suffix, { force: true });
  fs.renameSync(partial, destination);
  console.log(`Backed up ${source}`);
  console.log(`  to ${destination} (${formatBytes(summary.size)}): ${describeContents(summary)}.`);
});
