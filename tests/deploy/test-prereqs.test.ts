import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";

/** scripts/test-prereqs.mjs: the first step of `npm test` (README "Two commands"). */

const SCRIPT = path.resolve("scripts/test-prereqs.mjs");
const MISSING = "/nonexistent/for-test/chromium";

/**
 * A copy of the script that any user can read: the checkout may sit in a directory only its owner
 * can enter (a clean clone under mktemp, root's home), and "nobody" must still run it.
 */
const copies: string[] = [];
afterAll(() => {
  for (const dir of copies) fs.rmSync(dir, { recursive: true, force: true });
});

function readableCopy(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "ow-prereqs-"));
  copies.push(dir);
  fs.chmodSync(dir, 0o755);
  const copy = path.join(dir, "test-prereqs.mjs");
  fs.copyFileSync(SCRIPT, copy);
  fs.chmodSync(copy, 0o644);
  fs.mkdirSync(path.join(dir, "lib"), { mode: 0o755 });
  fs.copyFileSync(path.resolve("scripts/lib/postgres-bin.mjs"), path.join(dir, "lib/postgres-bin.mjs"));
  fs.chmodSync(path.join(dir, "lib/postgres-bin.mjs"), 0o644);
  return copy;
}

function prereqs(args: string[], env: Record<string, string>, { asNobody = false } = {}) {
  const dropRoot = asNobody && process.getuid?.() === 0;
  const node = [process.execPath, dropRoot ? readableCopy() : SCRIPT, ...args];
  const [command, ...rest] = dropRoot ? ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", ...node] : node;
  const result = spawnSync(command as string, rest, { env: { ...process.env, ...env }, encoding: "utf8" });
  return { code: result.status, output: `${result.stdout}${result.stderr}` };
}

describe("test prerequisites", () => {
  it("does nothing and says nothing when everything is present", () => {
    const { code, output } = prereqs([], {});
    expect(code).toBe(0);
    expect(output).toBe("");
  });

  it("names what is missing", () => {
    const { code, output } = prereqs(["--check"], { CHROMIUM_PATH: MISSING });
    expect(code).toBe(1);
    expect(output).toContain("Chromium");
    expect(output).not.toContain("nginx");
  });

  it("names PostgreSQL when its programs are missing", () => {
    const { code, output } = prereqs(["--check"], { POSTGRES_BIN_DIR: "/nonexistent/for-test" });
    expect(code).toBe(1);
    expect(output).toContain("PostgreSQL");
    expect(output).not.toContain("Chromium");
  });

  it("stops at once with the install command when not root, never skipping", () => {
    const { code, output } = prereqs([], { CHROMIUM_PATH: MISSING, NGINX_PATH: MISSING }, { asNobody: true });
    expect(code).toBe(1);
    expect(output).toContain("apt-get install -y chromium nginx");
    expect(output).not.toContain("Installing");
  });

  it.runIf(process.getuid?.() === 0)("as root with apt installs only the missing packages", () => {
    const { code, output } = prereqs(["--dry-run"], { NGINX_PATH: MISSING });
    expect(code).toBe(0);
    expect(output).toContain("would run: apt-get update");
    expect(output).toMatch(/would run: apt-get install .* nginx$/m);
    expect(output).not.toMatch(/install .*chromium/);
  });

  it.runIf(process.getuid?.() === 0)("as root with apt installs Debian's postgresql when PostgreSQL is missing", () => {
    const { code, output } = prereqs(["--dry-run"], { POSTGRES_BIN_DIR: "/nonexistent/for-test" });
    expect(code).toBe(0);
    expect(output).toMatch(/would run: apt-get install .* postgresql$/m);
  });
});
