#!/usr/bin/env node
/**
 * The first step of `npm test`: makes sure the machine has what the tests need beyond npm —
 * Chromium (browser tests), nginx (reverse-proxy tests), a CJK font (Japanese screenshots) and
 * PostgreSQL (the store's tests run a second time against a throwaway cluster).
 *
 * - Everything present: does nothing.
 * - Missing, running as root with apt (Debian/Ubuntu): installs the missing packages, never
 *   starting a service (nginx's package would start one on port 80).
 * - Missing otherwise: stops at once with the one command to run. Never a silent skip.
 *
 * `--check` only reports (exit 1 when something is missing); `--dry-run` prints what it would run.
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import { isExecutable, postgresProgram } from "./lib/postgres-bin.mjs";

const REQUIREMENTS = [
  {
    what: "Chromium (browser tests)",
    pkg: "chromium",
    present: () => isExecutable(process.env.CHROMIUM_PATH ?? "/usr/bin/chromium"),
  },
  {
    what: "nginx (reverse-proxy tests)",
    pkg: "nginx",
    present: () => isExecutable(process.env.NGINX_PATH ?? "/usr/sbin/nginx"),
  },
  {
    what: "a CJK font (Japanese screenshots)",
    pkg: "fonts-noto-cjk",
    present: () => hasCjkFont(),
  },
  {
    what: "PostgreSQL (the store's tests on PostgreSQL, backup with pg_dump)",
    pkg: "postgresql",
    present: () => ["postgres", "initdb", "pg_dump", "pg_restore"].every((name) => postgresProgram(name)),
  },
];

/** Keeps apt's maintainer scripts from starting services while it installs (see invoke-rc.d). */
const POLICY_RC = "/usr/sbin/policy-rc.d";

function hasCjkFont() {
  const dirs = ["/usr/share/fonts/opentype/noto", "/usr/share/fonts/truetype/noto"];
  return dirs.some((dir) => {
    try {
      return fs.readdirSync(dir).some((name) => /CJK/i.test(name));
    } catch {
      return false;
    }
  });
}

function run(command, args, env = process.env) {
  const result = spawnSync(command, args, { stdio: "inherit", env });
  if (result.status !== 0) {
    throw new Error(`${command} ${args.join(" ")} failed (exit ${result.status ?? result.signal}).`);
  }
}

function install(packages, { dryRun }) {
  const env = { ...process.env, DEBIAN_FRONTEND: "noninteractive" };
  const steps = [
    ["apt-get", ["update", "-qq"]],
    ["apt-get", ["install", "-y", "-qq", "--no-install-recommends", ...packages]],
  ];
  if (dryRun) {
    for (const [command, args] of steps) console.log(`would run: ${command} ${args.join(" ")}`);
    return;
  }
  const ownPolicy = !fs.existsSync(POLICY_RC);
  if (ownPolicy)
    fs.writeFileSync(POLICY_RC, "#!/bin/sh\n# written by ollama-web's test-prereqs: no service starts\nexit 101\n", {
      mode: 0o755,
    });
  try {
    for (const [command, args] of steps) run(command, args, env);
  } finally {
    if (ownPolicy) fs.rmSync(POLICY_RC, { force: true });
  }
}

function main() {
  const flags = new Set(process.argv.slice(2));
  const missing = REQUIREMENTS.filter((requirement) => !requirement.present());
  if (missing.length === 0) return 0;
  const packages = missing.map((requirement) => requirement.pkg);
  const command = `apt-get install -y ${packages.join(" ")}`;
  console.log(`Tests need: ${missing.map((requirement) => requirement.what).join(", ")}.`);
  if (flags.has("--check")) return 1;
  const isRoot = process.getuid?.() === 0;
  const hasApt = isExecutable("/usr/bin/apt-get");
  if (!isRoot || !hasApt) {
    console.error(
      hasApt
        ? `Run this once as root, then npm test again:\n  sudo ${command}`
        : `Install them with your package manager (on Debian/Ubuntu: sudo ${command}), then npm test again.`,
    );
    return 1;
  }
  console.log(`Installing with apt (no service is started): ${packages.join(" ")}`);
  install(packages, { dryRun: flags.has("--dry-run") });
  if (flags.has("--dry-run")) return 0;
  const still = REQUIREMENTS.filter((requirement) => !requirement.present());
  if (still.length > 0) {
    console.error(`Still missing after apt: ${still.map((requirement) => requirement.pkg).join(", ")}.`);
    return 1;
  }
  return 0;
}

try {
  process.exitCode = main();
} catch (error) {
  console.error(error instanceof Error ? error.message : error);
  process.exitCode = 1;
}
