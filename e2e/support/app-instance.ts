import { type ChildProcess, spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { AppInstance } from "../../tests/support/app-cluster";
import { freePort } from "./free-port";
import { FAKE_OLLAMA_URL, FAKE_WEB_PORT, FAKE_WEB_URL } from "./servers";

const START_TIMEOUT_MS = 90_000;

/**
 * One more `next start` of the production build, beside those playwright.config.ts starts: on a free
 * loopback port, with a DATA_DIR of its own and the shared fake Ollama and fake web, plus `env`.
 * Resolves once /api/health answers; `stop()` ends it by its PID and removes its DATA_DIR.
 */
export async function startAppInstance(env: Record<string, string>): Promise<AppInstance> {
  const port = await freePort();
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "ollama-web-e2e-instance-"));
  const child: ChildProcess = spawn(
    process.execPath,
    ["node_modules/next/dist/bin/next", "start", "-H", "127.0.0.1", "-p", String(port)],
    {
      env: {
        ...process.env,
        NEXT_TELEMETRY_DISABLED: "1",
        DATA_DIR: dataDir,
        OLLAMA_BASE_URL: FAKE_OLLAMA_URL,
        FETCH_ALLOW_PRIVATE: `127.0.0.1:${FAKE_WEB_PORT}`,
        DUCKDUCKGO_URL: `${FAKE_WEB_URL}/html/`,
        ...env,
      },
      stdio: ["ignore", "ignore", "pipe"],
    },
  );
  let log = "";
  child.stderr?.on("data", (chunk: Buffer) => {
    log = (log + chunk.toString()).slice(-4000);
  });
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
    await exited;
    fs.rmSync(dataDir, { recursive: true, force: true });
  };

  const base = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + START_TIMEOUT_MS;
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null) {
      await stop();
      throw new Error(`next start on ${base} exited while starting:\n${log}`);
    }
    const health = await fetch(`${base}/api/health`).catch(() => undefined);
    if (health?.ok) return { base, stop };
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`next start on ${base} did not answer /api/health within ${START_TIMEOUT_MS / 1000} s:\n${log}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}
