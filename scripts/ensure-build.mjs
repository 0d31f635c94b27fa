// Builds the app with `next build` unless .next holds a build of exactly these sources.
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const inputs = ["app", "components", "lib", "messages", "prompts", "public", "drizzle"];
const inputFiles = [
  "package-lock.json",
  "next.config.ts",
  "postcss.config.mjs",
  "tsconfig.json",
  "instrumentation.ts",
  "proxy.ts",
];
const stamp = path.join(root, ".next", "source-fingerprint");

function* walk(dir) {
  if (!fs.existsSync(dir)) return;
  for (const entry of fs.readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) yield* walk(full);
    else yield full;
  }
}

export function sourceFingerprint() {
  const hash = createHash("sha256");
  const files = [
    ...inputs.flatMap((dir) => [...walk(path.join(root, dir))]),
    ...inputFiles.map((f) => path.join(root, f)),
  ];
  for (const file of files) {
    if (!fs.existsSync(file) || /\.test\.tsx?$/.test(file)) continue;
    hash.update(path.relative(root, file));
    hash.update(fs.readFileSync(file));
  }
  return hash.digest("hex");
}

/** `force`: build even when the build is current (`npm run build`). */
export function ensureBuild({ force = false } = {}) {
  const fingerprint = sourceFingerprint();
  const built = fs.existsSync(path.join(root, ".next", "BUILD_ID")) && fs.existsSync(stamp);
  if (!force && built && fs.readFileSync(stamp, "utf8") === fingerprint) return;
  console.log("[start] building the app (next build)…");
  const result = spawnSync(process.execPath, [path.join(root, "node_modules/next/dist/bin/next"), "build"], {
    cwd: root,
    stdio: "inherit",
    env: { ...process.env, NEXT_TELEMETRY_DISABLED: "1" },
  });
  if (result.status !== 0) process.exit(result.status ?? 1);
  fs.writeFileSync(stamp, fingerprint);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) ensureBuild({ force: process.argv.includes("--force") });
