import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { accountsRequired, configSchema, isLoopbackHost, parseConfig } from "@/lib/env-config";
import { loadSite } from "./support/nginx";

/** deploy/systemd/ollama-web.service and the environment file it reads, deploy/env.example. */

const UNIT_FILE = path.resolve("deploy/systemd/ollama-web.service");
const BACKUP_SERVICE = path.resolve("deploy/systemd/ollama-web-backup.service");
const BACKUP_TIMER = path.resolve("deploy/systemd/ollama-web-backup.timer");
const ENV_FILE = path.resolve("deploy/env.example");
const SYSTEMD_ANALYZE = "/usr/bin/systemd-analyze";

type Unit = Record<string, Record<string, string[]>>;

/** systemd's unit syntax, as far as this file uses it: sections, `Key=value`, repeated keys, comments. */
function parseUnit(text: string): Unit {
  const unit: Unit = {};
  let section: Record<string, string[]> | undefined;
  for (const raw of text.split("\n")) {
    const line = raw.trim();
    if (line === "" || line.startsWith("#") || line.startsWith(";")) continue;
    const header = /^\[(.+)\]$/.exec(line);
    if (header?.[1]) {
      unit[header[1]] ??= {};
      section = unit[header[1]];
      continue;
    }
    const assignment = /^([A-Za-z0-9]+)=(.*)$/.exec(line);
    if (!assignment?.[1] || !section) throw new Error(`unit file: cannot parse "${line}"`);
    section[assignment[1]] = [...(section[assignment[1]] ?? []), assignment[2] ?? ""];
  }
  return unit;
}

/** An EnvironmentFile: `KEY=value` lines and comments (no quoting is used in ours). */
function parseEnvFile(text: string): Record<string, string> {
  const env: Record<string, string> = {};
  for (const raw of text.split("\n")) {
    const line = raw.trim();
    if (line === "" || line.startsWith("#")) continue;
    const assignment = /^([A-Z0-9_]+)=(.*)$/.exec(line);
    if (!assignment?.[1]) throw new Error(`env file: cannot parse "${line}"`);
    env[assignment[1]] = assignment[2] ?? "";
  }
  return env;
}

const unit = parseUnit(fs.readFileSync(UNIT_FILE, "utf8"));
const service = unit.Service ?? {};
const one = (key: string) => {
  expect(service[key], key).toHaveLength(1);
  return service[key]?.[0];
};
const unitEnvironment = Object.fromEntries(
  (service.Environment ?? []).map((assignment) => assignment.split(/=(.*)/s).slice(0, 2) as [string, string]),
);

describe("the systemd unit", () => {
  it("runs npm start's script from /opt/ollama-web as the unprivileged ollama-web user", () => {
    expect(one("User")).toBe("ollama-web");
    expect(one("Group")).toBe("ollama-web");
    expect(one("WorkingDirectory")).toBe("/opt/ollama-web");
    expect(one("ExecStart")).toMatch(/^\/usr\/bin\/node scripts\/start\.mjs$/);
    expect(unit.Install?.WantedBy).toEqual(["multi-user.target"]);
  });

  it("reads the production configuration from /etc/ollama-web/env and refuses to start without it", () => {
    // No leading "-": a missing file would silently mean no AUTH_MODE=required.
    expect(one("EnvironmentFile")).toBe("/etc/ollama-web/env");
    expect(unitEnvironment).toMatchObject({ NODE_ENV: "production", DATA_DIR: "/var/lib/ollama-web" });
  });

  it("restarts after a crash and stops within 30 s on SIGTERM, sent to the wrapper that forwards it", () => {
    expect(one("Restart")).toBe("on-failure");
    expect(one("KillSignal")).toBe("SIGTERM");
    expect(one("KillMode")).toBe("mixed");
    expect(one("TimeoutStopSec")).toBe("30");
  });

  it("is hardened and may write only its data directory and the build cache", () => {
    for (const [key, value] of Object.entries({
      NoNewPrivileges: "yes",
      ProtectSystem: "strict",
      PrivateTmp: "yes",
      ProtectHome: "yes",
      PrivateDevices: "yes",
      ProtectKernelTunables: "yes",
      ProtectKernelModules: "yes",
      ProtectControlGroups: "yes",
      RestrictSUIDSGID: "yes",
      CapabilityBoundingSet: "",
    })) {
      expect(one(key), key).toBe(value);
    }
    expect(one("ReadWritePaths")?.split(/\s+/)).toEqual([unitEnvironment.DATA_DIR, "/opt/ollama-web/.next"]);
    expect(one("StateDirectory")).toBe(path.basename(unitEnvironment.DATA_DIR ?? ""));
  });
});

describe("the nightly backup", () => {
  const backup = parseUnit(fs.readFileSync(BACKUP_SERVICE, "utf8")).Service ?? {};
  const timer = parseUnit(fs.readFileSync(BACKUP_TIMER, "utf8"));

  it("runs npm run backup's script as the service user on the service's data directory", () => {
    expect(backup.User).toEqual(service.User);
    expect(backup.WorkingDirectory).toEqual(service.WorkingDirectory);
    expect(backup.Environment).toEqual([`DATA_DIR=${unitEnvironment.DATA_DIR}`]);
    expect(backup.ExecStart).toEqual(["/usr/bin/node scripts/backup.mjs /var/backups/ollama-web"]);
    expect(backup.ReadWritePaths?.[0]?.split(/\s+/)).toEqual([unitEnvironment.DATA_DIR, "/var/backups/ollama-web"]);
  });

  it("prunes only the files the backup script names, in the backup directory", () => {
    const prune = /^\/usr\/bin\/find (\S+) -name (\S+) -mtime \+\d+ -delete$/.exec(backup.ExecStartPost?.[0] ?? "");
    expect(prune?.[1]).toBe("/var/backups/ollama-web");
    const glob = new RegExp(`^${(prune?.[2] ?? "").replaceAll(".", "\\.").replaceAll("*", ".*")}$`);
    expect(glob.test("ollama-web-2025-01-31T03-30-00Z.sqlite")).toBe(true);
    expect(glob.test("ollama-web.sqlite")).toBe(false);
  });

  it("is started daily by its timer, catching up after downtime", () => {
    expect(timer.Timer?.OnCalendar).toHaveLength(1);
    expect(timer.Timer?.Persistent).toEqual(["true"]);
    expect(timer.Install?.WantedBy).toEqual(["timers.target"]);
  });
});

describe.skipIf(!fs.existsSync(SYSTEMD_ANALYZE))("systemd-analyze verify", () => {
  const files = [UNIT_FILE, BACKUP_SERVICE, BACKUP_TIMER];
  it.each(files.map((file) => [path.basename(file), file]))("accepts %s without a warning", (_name, file) => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "ollama-web-unit-"));
    try {
      // A timer is verified with the service it starts beside it.
      for (const unitFile of files) {
        let text = fs.readFileSync(unitFile, "utf8");
        // verify checks that ExecStart's binary exists; where Node lives elsewhere, use this one.
        if (!fs.existsSync("/usr/bin/node")) text = text.replaceAll("/usr/bin/node", process.execPath);
        fs.writeFileSync(path.join(dir, path.basename(unitFile)), text);
      }
      const result = spawnSync(SYSTEMD_ANALYZE, ["verify", "--man=no", path.join(dir, path.basename(file))], {
        encoding: "utf8",
      });
      expect(result.stderr + result.stdout).toBe("");
      expect(result.status).toBe(0);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("the production environment file", () => {
  const env = parseEnvFile(fs.readFileSync(ENV_FILE, "utf8"));

  it("is a valid configuration that requires accounts", () => {
    const config = parseConfig({ ...env, DATA_DIR: unitEnvironment.DATA_DIR });
    expect(env.AUTH_MODE).toBe("required");
    expect(accountsRequired(config)).toBe(true);
  });

  it("names only variables the app reads, and leaves DATA_DIR and NODE_ENV to the unit", () => {
    const known = new Set(Object.keys(configSchema.shape));
    expect(Object.keys(env).filter((name) => !known.has(name))).toEqual([]);
    expect(env).not.toHaveProperty("DATA_DIR");
    expect(env).not.toHaveProperty("NODE_ENV");
  });

  it("binds the app to loopback where nginx's upstream points", () => {
    const config = parseConfig(env);
    expect(isLoopbackHost(config.HOST)).toBe(true);
    const upstream = loadSite().find((directive) => directive.name === "upstream");
    const server = upstream?.block?.find((directive) => directive.name === "server");
    expect(server?.args).toEqual([`${config.HOST}:${config.PORT}`]);
  });

  it("keeps Ollama on loopback", () => {
    expect(isLoopbackHost(new URL(parseConfig(env).OLLAMA_BASE_URL).hostname)).toBe(true);
  });
});
