// `npm run restore -- <file> [--force]`: puts a backup in place of the app's database. The server must
// be stopped (or --force, then restart it at once). The replaced database is kept beside the new one
// (on PostgreSQL, as a dump in DATA_DIR).
import fs from "node:fs";
import path from "node:path";
import { fileTimestamp, formatBytes, parseArgs, runScript, UsageError } from "./lib/cli.mjs";
import { DB_FILENAME, databasePath, dataDir, loadDotEnv, PID_FILENAME, runningServerPid } from "./lib/data-dir.mjs";
import { copyDatabase, describeContents, inspectDatabase } from "./lib/database.mjs";
import {
  DUMP_SUFFIX,
  describeUrl,
  dumpDatabase,
  inspectDump,
  missingTablesAt,
  postgresUrl,
  restoreDump,
} from "./lib/postgres-dump.mjs";

const USAGE = `Usage: npm run restore -- <backup file> [--force]
  Replaces $DATA_DIR/ollama-web.sqlite (DATA_DIR from the environment or .env) with the backup,
  keeping the replaced database as ollama-web.sqlite.before-restore-<UTC time>.
  --force restores even while the server runs (restart it right after) or when the backup comes
  from a newer version of ollama-web.
  When DATABASE_URL names a PostgreSQL database, restores a pg_dump backup into it (pg_restore, in
  one transaction), keeping its previous contents as $DATA_DIR/ollama-web.before-restore-<UTC time>.pgdump.`;

await runScript(async () => {
  loadDotEnv();
  const { file, force } = parseArgs(process.argv.slice(2), USAGE);
  const source = path.resolve(file);
  const dir = dataDir();
  const url = postgresUrl();
  const target = url ? describeUrl(url) : databasePath();
  if (source === target) throw new UsageError("The backup is the database itself; nothing to restore.");

  const summary = url ? await inspectDump(source) : inspectDatabase(source);
  if (summary.newerSchema && !force) {
    throw new UsageError(
      `${source} comes from a newer version of ollama-web than this one. Upgrade first, or pass --force.`,
    );
  }
  const pid = runningServerPid(dir);
  if (pid !== undefined && !force) {
    throw new UsageError(
      `ollama-web is running (PID ${pid} in ${path.join(dir, PID_FILENAME)}). Stop it first ` +
        "(systemctl stop ollama-web), or pass --force and restart it right after.",
    );
  }
  if (url) {
    await restorePostgres(url, source, summary, { dir, pid });
    return;
  }

  fs.mkdirSync(dir, { recursive: true });
  // Copied through SQLite (not byte for byte) so that a backup with a -wal beside it arrives whole.
  const incoming = path.join(dir, `${DB_FILENAME}.restoring-${process.pid}`);
  try {
    await copyDatabase(source, incoming);
    fs.chmodSync(incoming, (fs.statSync(target, { throwIfNoEntry: false })?.mode ?? 0o600) & 0o777);
    // Run as root, the file would belong to root and the service account could not write it.
    if (process.getuid?.() === 0) {
      const owner = fs.statSync(dir);
      fs.chownSync(incoming, owner.uid, owner.gid);
    }
  } catch (error) {
    fs.rmSync(incoming, { force: true });
    throw error;
  }

  let kept;
  if (fs.existsSync(target)) {
    kept = `${target}.before-restore-${fileTimestamp()}`;
    for (let n = 2; fs.existsSync(kept); n++) kept = `${target}.before-restore-${fileTimestamp()}-${n}`;
    fs.renameSync(target, kept);
    // The replaced database's WAL may hold its latest writes: it goes with it, under the matching name.
    for (const suffix of ["-wal", "-journal"]) {
      if (fs.existsSync(target + suffix)) fs.renameSync(target + suffix, kept + suffix);
    }
  }
  // Whatever is left would be replayed into, or describe, a database that is no longer there.
  for (const suffix of ["-wal", "-shm", "-journal"]) fs.rmSync(target + suffix, { force: true });
  fs.renameSync(incoming, target);

  console.log(`Restored ${source}`);
  console.log(`  into ${target} (${formatBytes(summary.size)}): ${describeContents(summary)}.`);
  if (kept) console.log(`  The replaced database is kept as ${kept}.`);
  if (pid !== undefined) console.log(`  The server (PID ${pid}) still has the old database open: restart it now.`);
});

/** PostgreSQL: the database's contents are kept as a dump in DATA_DIR, then replaced in one transaction. */
async function restorePostgres(url, source, summary, { dir, pid }) {
  let kept;
  if ((await missingTablesAt(url)).length === 0) {
    fs.mkdirSync(dir, { recursive: true });
    kept = path.join(dir, `ollama-web.before-restore-${fileTimestamp()}${DUMP_SUFFIX}`);
    for (let n = 2; fs.existsSync(kept); n++)
      kept = path.join(dir, `ollama-web.before-restore-${fileTimestamp()}-${n}${DUMP_SUFFIX}`);
    try {
      await dumpDatabase(url, kept);
    } catch (error) {
      fs.rmSync(kept, { force: true });
      throw error;
    }
  }
  const restored = await restoreDump(url, source);
  console.log(`Restored ${source}`);
  console.log(`  into ${describeUrl(url)} (${formatBytes(summary.size)}): ${describeContents(restored)}.`);
  if (kept) console.log(`  The replaced contents are kept as ${kept}.`);
  if (pid !== undefined) console.log(`  The server (PID ${pid}) still has the old contents in memory: restart it now.`);
}
