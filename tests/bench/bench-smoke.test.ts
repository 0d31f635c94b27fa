import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { benchScripts, NEEDS_BUILD } from "@/scripts/bench/smoke.mts";

/**
 * The benchmarks' smoke set (scripts/bench/smoke.mts; docs/benchmarks.md, "Smoke runs"), run on a
 * package.json of planted benchmarks: one that no longer runs must fail `npm test`.
 */

const root = path.resolve(import.meta.dirname, "../..");
const runner = path.join(root, "scripts/bench/smoke.mts");
const dirs: string[] = [];

afterEach(() => {
  for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

/** A package whose `bench:*` scripts are `node -e <code>`. */
function packageWith(benches: Record<string, string>): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "bench-smoke-"));
  dirs.push(dir);
  const scripts = Object.fromEntries(
    Object.entries(benches).map(([name, code]) => [name, `node -e ${JSON.stringify(code)}`]),
  );
  fs.writeFileSync(
    path.join(dir, "package.json"),
    JSON.stringify({ name: "planted", scripts: { test: "x", ...scripts } }),
  );
  return dir;
}

function runSmokes(dir: string, { timeoutS = 60 } = {}) {
  const result = spawnSync(process.execPath, ["--import", "tsx", runner], {
    cwd: root,
    env: { ...process.env, BENCH_SMOKE: undefined, BENCH_SMOKE_DIR: dir, BENCH_SMOKE_TIMEOUT_S: String(timeoutS) },
    encoding: "utf8",
  });
  return { status: result.status, output: result.stdout + result.stderr };
}

/** Exits 0 only when run in smoke mode, as a benchmark's smoke run does. */
const SMOKE_ONLY = "process.exit(process.env.BENCH_SMOKE === '1' ? 0 : 3)";

describe("benchmark smoke runs", () => {
  it("runs every bench:* script in smoke mode and passes when each runs to its end", () => {
    const dir = packageWith({ "bench:one": SMOKE_ONLY, "bench:two": SMOKE_ONLY });
    const { status, output } = runSmokes(dir);
    expect(output).toContain("ok   bench:one");
    expect(output).toContain("ok   bench:two");
    expect(status).toBe(0);
  });

  it("fails the set when one benchmark's smoke run exits non-zero, and names it", () => {
    const dir = packageWith({
      "bench:fine": SMOKE_ONLY,
      "bench:broken": "console.error('selector matched nothing'); process.exit(1)",
    });
    const { status, output } = runSmokes(dir);
    expect(status).toBe(1);
    expect(output).toContain("FAIL bench:broken");
    expect(output).toContain("selector matched nothing");
    expect(output).toContain("ok   bench:fine");
  });

  it("fails the set when a benchmark ignores smoke mode and runs on past the timeout", () => {
    const dir = packageWith({ "bench:endless": "setInterval(() => {}, 1000)" });
    const { status, output } = runSmokes(dir, { timeoutS: 1 });
    expect(status).toBe(1);
    expect(output).toContain("bench:endless still running after 1 s");
  });

  it("runs the benchmarks that start the build only in the phase after the build", () => {
    const dir = packageWith({ "bench:ui": SMOKE_ONLY, "bench:forms": SMOKE_ONLY, dev: "" });
    expect(benchScripts(dir, { built: false })).toEqual(["bench:forms"]);
    expect(benchScripts(dir, { built: true })).toEqual(["bench:ui"]);
  });

  it("names only benchmarks package.json has as needing the build, and npm test runs both phases", () => {
    const manifest = JSON.parse(fs.readFileSync(path.join(root, "package.json"), "utf8")) as {
      scripts: Record<string, string>;
    };
    for (const name of NEEDS_BUILD) expect(manifest.scripts, name).toHaveProperty([name]);
    const test = manifest.scripts.test ?? "";
    expect(test).toMatch(/npm run test:unit && npm run test:bench-smoke && /);
    expect(test).toMatch(/npm run test:e2e && npm run test:bench-smoke:built/);
  });
});
