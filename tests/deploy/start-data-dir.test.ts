import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { runCommand, type ScriptResult } from "./support/run-script";

/**
 * `npm start` (scripts/start.mjs) with an unusable DATA_DIR stops before building or serving, with
 * one line naming the variable and a non-zero exit. A preload turns any child process (the build,
 * the server) into a loud failure, so a missing check cannot start a real build here.
 */

const NO_CHILD_PROCESSES = pathToFileURL(path.resolve("tests/deploy/support/no-child-processes.mjs")).href;

const npmStart = (dataDir: string) =>
  runCommand(process.execPath, ["--import", NO_CHILD_PROCESSES, "scripts/start.mjs"], { DATA_DIR: dataDir });

/**
 * `npm start` with `dir` read-only. chmod does not stop root, so as root the directory is bound
 * read-only inside a private mount namespace (unshare), which nothing outside the child sees.
 */
function npmStartReadOnly(dir: string): Promise<ScriptResult> {
  const node = [process.execPath, "--import", NO_CHILD_PROCESSES, "scripts/start.mjs"];
  if (process.getuid?.() !== 0) {
    fs.chmodSync(dir, 0o555);
    return runCommand(node[0] as string, node.slice(1), { DATA_DIR: dir });
  }
  const probe = spawnSync("unshare", ["-rm", "true"]);
  if (probe.status !== 0) {
    throw new Error(
      "As root this test needs `unshare -rm` (util-linux, mount namespaces) to make a read-only directory.",
    );
  }
  const script = 'mount --bind -o ro "$1" "$1" && shift && exec "$@"';
  return runCommand("unshare", ["-rm", "sh", "-c", script, "sh", dir, ...node], { DATA_DIR: dir });
}

describe("npm start refuses an unusable DATA_DIR with one line naming it", () => {
  let scratch = "";
  afterEach(() => {
    if (scratch) {
      fs.chmodSync(scratch, 0o755);
      for (const entry of fs.readdirSync(scratch)) fs.chmodSync(path.join(scratch, entry), 0o755);
      fs.rmSync(scratch, { recursive: true, force: true });
    }
  });

  function newScratch(): string {
    scratch = fs.mkdtempSync(path.join(os.tmpdir(), "ollama-web-start-"));
    return scratch;
  }

  function expectRefusal(result: ScriptResult, line: string) {
    expect(result.code).toBe(1);
    expect(result.stderr.trim().split("\n")).toEqual([line]);
    expect(result.stdout).not.toContain("building");
  }

  it("a file, not a directory", async () => {
    const file = path.join(newScratch(), "data");
    fs.writeFileSync(file, "");
    expectRefusal(await npmStart(file), `Invalid configuration: DATA_DIR is not a directory: ${file}`);
  });

  it("a directory that cannot be created (a parent is a file)", async () => {
    const file = path.join(newScratch(), "file");
    fs.writeFileSync(file, "");
    const dir = path.join(file, "data");
    expectRefusal(
      await npmStart(dir),
      `Invalid configuration: DATA_DIR cannot be created (a parent is not a directory): ${dir}`,
    );
  });

  it("a read-only directory", async () => {
    const dir = path.join(newScratch(), "data");
    fs.mkdirSync(dir);
    const result = await npmStartReadOnly(dir);
    expect(result.code).toBe(1);
    expect(result.stderr.trim().split("\n")).toEqual([
      expect.stringMatching(
        /^Invalid configuration: DATA_DIR is not writable \((read-only file system|permission denied)\): /,
      ),
    ]);
  });
});
