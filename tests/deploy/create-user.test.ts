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
    const short = run(dataDir, ["shorty"], "short");
    expect(short.status).toBe(2);
    expect(short.stderr).toContain("The password must be at least 8 characters.");
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

  it("applies the same user name rules as sign-up, and creates nothing when they are broken", () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "ow-user-"));
    dirs.push(dataDir);
    const spaced = run(dataDir, ["two words"], "a long password");
    expect(spaced.status).toBe(2);
    expect(spaced.stderr).toContain("The username may use letters, digits, dot, dash and underscore only.");
    expect(run(dataDir, ["ab"], "a long password").stderr).toContain("The username must be at least 3 characters.");
    const db = new Database(path.join(dataDir, "ollama-web.sqlite"), { readonly: true });
    expect(db.prepare("select count(*) as n from users").get()).toEqual({ n: 0 });
    db.close();
  }, 60_000);
});
