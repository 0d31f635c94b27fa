import fs from "node:fs";
import path from "node:path";
import { defineConfig, devices } from "@playwright/test";
import {
  APP_ACCOUNTS_SETUP_TOKEN,
  APP_ACCOUNTS_URL,
  APP_OLLAMA_DOWN_URL,
  APP_OPENAI_SERVERS,
  APP_URL,
  FAKE_OLLAMA_PORT,
  FAKE_OLLAMA_URL,
  FAKE_OPENAI_KEY,
  FAKE_OPENAI_PORT,
  FAKE_OPENAI_URL,
  FAKE_WEB_PORT,
  FAKE_WEB_URL,
} from "./e2e/support/servers";

/**
 * E2E against the production build (made beforehand by `npm run test:e2e`) and the fake Ollama.
 * Six servers: the fake Ollama, a fake web (pages, a PDF, a DuckDuckGo-shaped search) on loopback, a
 * fake OpenAI-compatible server (vLLM's flavour), the app talking to all three, a second app whose
 * Ollama is down, and a third with accounts required.
 * e2e/cluster.spec.ts starts more for its own tests: PostgreSQL, two app instances on it, nginx.
 */

// This file is loaded by the runner and again by each worker. Only the runner (workers have
// TEST_WORKER_INDEX) starts the servers, so only it prepares fresh, empty data directories.
const resultsDir = path.resolve("test-results");
const dataRoot = path.join(resultsDir, `e2e-data-${process.pid}`);
if (process.env.TEST_WORKER_INDEX === undefined) {
  fs.mkdirSync(resultsDir, { recursive: true });
  for (const entry of fs.readdirSync(resultsDir)) {
    if (entry.startsWith("e2e-data-")) fs.rmSync(path.join(resultsDir, entry), { recursive: true, force: true });
  }
  fs.mkdirSync(path.join(dataRoot, "app"), { recursive: true });
  fs.mkdirSync(path.join(dataRoot, "ollama-down"), { recursive: true });
  fs.mkdirSync(path.join(dataRoot, "accounts"), { recursive: true });
}

const nextStart = (port: number) => `node node_modules/next/dist/bin/next start -H 127.0.0.1 -p ${port}`;

export default defineConfig({
  testDir: "e2e",
  outputDir: "test-results/playwright",
  fullyParallel: false,
  workers: 1,
  // On CI one retry, reported as "flaky" in the summary: a real failure fails twice.
  retries: process.env.CI ? 1 : 0,
  forbidOnly: !!process.env.CI,
  timeout: 60_000,
  expect: { timeout: 10_000 },
  reporter: [["list"], ["html", { open: "never", outputFolder: "playwright-report" }]],
  use: {
    ...devices["Desktop Chrome"],
    baseURL: APP_URL,
    viewport: { width: 1280, height: 800 },
    trace: "retain-on-failure",
    screenshot: "only-on-failure",
    launchOptions: {
      executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
      args: [
        "--no-sandbox",
        "--disable-gpu",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--no-first-run",
      ],
    },
  },
  webServer: [
    {
      command: "npx tsx e2e/support/fake-ollama-server.ts",
      url: `${FAKE_OLLAMA_URL}/api/version`,
      env: { FAKE_OLLAMA_PORT: String(FAKE_OLLAMA_PORT) },
      reuseExistingServer: false,
      timeout: 30_000,
    },
    {
      command: "npx tsx e2e/support/fake-web-server.ts",
      url: `${FAKE_WEB_URL}/health`,
      env: { FAKE_WEB_PORT: String(FAKE_WEB_PORT) },
      reuseExistingServer: false,
      timeout: 30_000,
    },
    {
      command: "npx tsx tests/fake-openai/cli.ts",
      url: `${FAKE_OPENAI_URL}/health`,
      env: {
        FAKE_OPENAI_PORT: String(FAKE_OPENAI_PORT),
        FAKE_OPENAI_FLAVOR: "vllm",
        FAKE_OPENAI_API_KEY: FAKE_OPENAI_KEY,
      },
      reuseExistingServer: false,
      timeout: 30_000,
    },
    {
      command: nextStart(3100),
      url: `${APP_URL}/api/health`,
      env: {
        NEXT_TELEMETRY_DISABLED: "1",
        OLLAMA_BASE_URL: FAKE_OLLAMA_URL,
        DATA_DIR: path.join(dataRoot, "app"),
        // The agent's tools may reach the fake web on loopback, and search through its DuckDuckGo page.
        FETCH_ALLOW_PRIVATE: `127.0.0.1:${FAKE_WEB_PORT}`,
        DUCKDUCKGO_URL: `${FAKE_WEB_URL}/html/`,
        // e2e/mcp.spec.ts adds the stdio test server from the settings page.
        MCP_STDIO_FROM_UI: "1",
        // e2e/openai-compatible.spec.ts: one fake server under three labels, the last with a wrong key.
        OPENAI_COMPATIBLE_URLS: Object.keys(APP_OPENAI_SERVERS)
          .map((label) => `${label}=${FAKE_OPENAI_URL}/v1`)
          .join(","),
        OPENAI_COMPATIBLE_KEYS: Object.entries(APP_OPENAI_SERVERS)
          .map(([label, key]) => `${label}=${key}`)
          .join(","),
      },
      reuseExistingServer: false,
      timeout: 60_000,
    },
    {
      command: nextStart(3101),
      url: `${APP_OLLAMA_DOWN_URL}/api/conversations`,
      env: {
        NEXT_TELEMETRY_DISABLED: "1",
        // Port 9 (discard) has no listener here: this instance finds Ollama down.
        OLLAMA_BASE_URL: "http://127.0.0.1:9",
        DATA_DIR: path.join(dataRoot, "ollama-down"),
      },
      reuseExistingServer: false,
      timeout: 60_000,
    },
    {
      command: nextStart(3102),
      url: `${APP_ACCOUNTS_URL}/api/health`,
      env: {
        NEXT_TELEMETRY_DISABLED: "1",
        OLLAMA_BASE_URL: FAKE_OLLAMA_URL,
        DATA_DIR: path.join(dataRoot, "accounts"),
        // On loopback, but as if exposed: sign-in required, the first account becomes the admin.
        AUTH_MODE: "required",
        // Its first sign-up needs the setup token; set here so the test need not read the server's log.
        SETUP_TOKEN: APP_ACCOUNTS_SETUP_TOKEN,
      },
      reuseExistingServer: false,
      timeout: 60_000,
    },
  ],
});
