import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import Database from "better-sqlite3";
import { afterEach, describe, expect, it } from "vitest";

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

function run(dataDir: string, args: string[], password: string) {
  return spawnSync(
    process.execPath,
    ["--conditions=react-server", "--import", "tsx", "scripts/create-user.mts", ...args],
    {
      input: `${password}\n`,
      env: { ...process.env, DATA_DIR: dataDir },
      encoding: "utf8",
    },
  );
}

describe("npm run create-user", () => {
  it("creates the first account as admin from the shell, reading the password from stdin", () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "ow-user-"));
    dirs.push(dataDir);
    const first = run(dataDir, ["Root"], "a long password");
    expect(first.status, first.stderr).toBe(0);
    expect(first.stdout).toContain("Created admin root.");
    const second = run(dataDir, ["helper"], "another password");
    expect(second.stdout).toContain("Created user helper.");
    expect(run(dataDir, ["helper"], "another password").status).toBe(1);
    expect(run(dataDir, ["shorty"], "short").status).toBe(2);
    const db = new Database(path.join(dataDir, "ollama-web.sqlite"), { readonly: true });
    const rows = db.prepare("select username, role, password_hash from users order by created_at").all() as {
      username: string;
      role: string;
      password_hash: string;
    }[];
    db.close();
    expect(rows.map((r) => [r.username, r.role])).toEqual([
      ["root", "admin"],
      ["helper", "user"],
    ]);
    expect(rows.every((r) => r.password_hash.startsWith("scrypt$") && !r.password_hash.includes("password"))).toBe(
      true,
    );
  }, 60_000);
});
