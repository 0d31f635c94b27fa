// `npm start`: build if needed, then serve the production build. Migrations run at server start.
import { spawn } from "node:child_process";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { dataDirError } from "../lib/data-dir-check.mjs";
import { ensureBuild } from "./ensure-build.mjs";
import { dataDir } from "./lib/data-dir.mjs";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
try {
  process.loadEnvFile(path.join(root, ".env"));
} catch {
  // no .env: the environment alone configures the app
}
// An unusable DATA_DIR stops here with one line, before a build or a server that could only fail.
const dataDirProblem = dataDirError(process.env.DATA_DIR, dataDir());
if (dataDirProblem) {
  console.error(dataDirProblem);
  process.exit(1);
}
ensureBuild();

const host = process.env.HOST || "127.0.0.1";
const port = process.env.PORT || "3000";
const server = spawn(
  process.execPath,
  [
    // Stamps each request with its TCP peer before Next.js sees it (lib/auth/peer-stamp.mjs).
    "--import",
    pathToFileURL(path.join(root, "scripts/lib/preload-peer-stamp.mjs")).href,
    path.join(root, "node_modules/next/dist/bin/next"),
    "start",
    "-H",
    host,
    "-p",
    port,
  ],
  {
    cwd: root,
    stdio: "inherit",
    env: {
      ...process.env,
      NEXT_TELEMETRY_DISABLED: "1",
      // With PostgreSQL, Next.js's own SIGTERM handler would exit as soon as its HTTP server has
      // closed, before the running answers are stored and the instance has left the others
      // (SQLite's writes are done by then); the server's handler (lib/server-start.ts) does both, then exits.
      ...(process.env.DATABASE_URL ? { NEXT_MANUAL_SIG_HANDLE: "1" } : {}),
    },
  },
);
for (const signal of ["SIGINT", "SIGTERM"]) process.on(signal, () => server.kill(signal));
server.on("exit", (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
