/**
 * `npm run test:bench-smoke [-- --built]`: every `bench:*` script of package.json run once in its
 * smoke mode (BENCH_SMOKE=1, scripts/bench/smoke-mode.mts), one after the other; any that exits
 * non-zero, or runs past BENCH_SMOKE_TIMEOUT_S, fails the set (docs/benchmarks.md, "Smoke runs").
 * Benchmarks that start the production build run with `--built`, after the e2e phase has built it;
 * the others run without it, right after the unit tests. No figure is checked: only that each
 * benchmark still runs to its end.
 */
import { spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";

/** The benchmarks that start `next start` (and so need the build). */
export const NEEDS_BUILD = new Set(["bench:engine", "bench:load", "bench:load:cluster", "bench:ui"]);

const DEFAULT_TIMEOUT_S = 180;
/** What is kept of a failed benchmark's output, to show why it failed. */
const OUTPUT_TAIL_CHARS = 4000;

/** The `bench:*` scripts of the package.json in `dir`, those of one phase. */
export function benchScripts(dir: string, { built }: { built: boolean }): string[] {
  const manifest = JSON.parse(fs.readFileSync(path.join(dir, "package.json"), "utf8")) as {
    scripts?: Record<string, string>;
  };
  return Object.keys(manifest.scripts ?? {})
    .filter((name) => name.startsWith("bench:"))
    .filter((name) => NEEDS_BUILD.has(name) === built);
}

interface SmokeOutcome {
  name: string;
  ok: boolean;
  seconds: number;
  /** Why it failed, and the end of its output. */
  failure?: string;
}

/** `npm run <name>` in `dir` with BENCH_SMOKE=1; its process group is ended if it outlives `timeoutS`. */
function smokeRun(dir: string, name: string, timeoutS: number): Promise<SmokeOutcome> {
  const started = performance.now();
  const child = spawn("npm", ["run", "--silent", name], {
    cwd: dir,
    env: { ...process.env, BENCH_SMOKE: "1" },
    stdio: ["ignore", "pipe", "pipe"],
    // Its own process group: a timeout ends the servers and browsers the benchmark started too.
    detached: true,
  });
  let output = "";
  const keep = (chunk: Buffer) => {
    output = (output + chunk.toString()).slice(-OUTPUT_TAIL_CHARS);
  };
  child.stdout.on("data", keep);
  child.stderr.on("data", keep);
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    endGroup(child.pid, "SIGTERM");
    setTimeout(() => endGroup(child.pid, "SIGKILL"), 5000).unref();
  }, timeoutS * 1000);
  return new Promise((resolve) => {
    child.once("close", (code, signal) => {
      clearTimeout(timer);
      const seconds = (performance.now() - started) / 1000;
      const ok = code === 0 && !timedOut;
      const why = timedOut ? `still running after ${timeoutS} s` : `exited with ${code ?? signal}`;
      resolve({ name, ok, seconds, ...(ok ? {} : { failure: `${why}\n${output}` }) });
    });
  });
}

function endGroup(pid: number | undefined, signal: NodeJS.Signals) {
  if (pid === undefined) return;
  try {
    process.kill(-pid, signal);
  } catch {
    // already gone
  }
}

async function main() {
  const built = process.argv.includes("--built");
  const dir = path.resolve(process.env.BENCH_SMOKE_DIR ?? ".");
  const timeoutS = Number(process.env.BENCH_SMOKE_TIMEOUT_S ?? DEFAULT_TIMEOUT_S);
  const names = benchScripts(dir, { built });
  console.log(`Benchmark smoke runs (${built ? "with the build" : "without the build"}): ${names.join(", ")}`);
  const failed: SmokeOutcome[] = [];
  for (const name of names) {
    const outcome = await smokeRun(dir, name, timeoutS);
    console.log(`  ${outcome.ok ? "ok  " : "FAIL"} ${name} (${outcome.seconds.toFixed(1)} s)`);
    if (!outcome.ok) failed.push(outcome);
  }
  for (const outcome of failed) console.error(`\n${outcome.name} ${outcome.failure}`);
  if (failed.length > 0) {
    console.error(
      `\n${failed.length} of ${names.length} benchmarks no longer run: ${failed.map((o) => o.name).join(", ")}`,
    );
    process.exit(1);
  }
}

if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve(import.meta.filename)) await main();
