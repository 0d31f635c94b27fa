import { type ChildProcess, spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { expect, test } from "@playwright/test";
import { fakeOllama } from "./support/fake-ollama";
import { freePort } from "./support/free-port";
import { FAKE_OLLAMA_URL } from "./support/servers";

/**
 * Several Ollama servers (OLLAMA_BASE_URLS): the admin view shows each, one of them down, and a
 * pull goes to the server chosen. An app instance of its own, so the shared one keeps one server.
 */

let server: ChildProcess | undefined;
let dataDir = "";
let base = "";
let downUrl = "";

test.beforeAll(async () => {
  const port = await freePort();
  downUrl = `http://127.0.0.1:${await freePort()}`;
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "ow-servers-"));
  server = spawn(
    process.execPath,
    ["node_modules/next/dist/bin/next", "start", "-H", "127.0.0.1", "-p", String(port)],
    {
      env: {
        ...process.env,
        DATA_DIR: dataDir,
        OLLAMA_BASE_URL: "",
        OLLAMA_BASE_URLS: `${FAKE_OLLAMA_URL},${downUrl}`,
        NEXT_TELEMETRY_DISABLED: "1",
      },
      stdio: "ignore",
    },
  );
  base = `http://127.0.0.1:${port}`;
  await expect
    .poll(async () => (await fetch(`${base}/api/health`).catch(() => null))?.status ?? 0, { timeout: 30_000 })
    .toBe(200);
});

test.afterAll(() => {
  server?.kill("SIGKILL");
  fs.rmSync(dataDir, { recursive: true, force: true });
});

test.beforeEach(async () => {
  await fakeOllama.reset();
});

test("the admin view shows two servers, one down; a pull goes to the server chosen", async ({ page }) => {
  await page.goto(`${base}/settings`);
  // The Ollama section names the servers and the variable that lists them (they are not set on the page).
  const ollama = page.getByTestId("settings-ollama");
  await expect(ollama.getByTestId("ollama-url")).toHaveText(`${FAKE_OLLAMA_URL}, ${downUrl}`);
  await expect(ollama).toContainText("OLLAMA_BASE_URLS");
  const servers = page.getByTestId("ollama-servers");
  const up = servers.locator(`[data-testid="ollama-server"][data-url="${FAKE_OLLAMA_URL}"]`);
  const down = servers.locator(`[data-testid="ollama-server"][data-url="${downUrl}"]`);
  await expect(up).toHaveAttribute("data-state", "up");
  await expect(up).toContainText("Up");
  await expect(up).toContainText("Ollama 0.12.10 · 4 models · idle");
  await expect(down).toHaveAttribute("data-state", "down");
  await expect(down).toContainText("Down");
  await expect(down.getByTestId("ollama-server-error")).toContainText("Cannot reach Ollama");

  // Each installed model says which server has it.
  await expect(page.locator('[data-testid="installed-model"][data-model="gemma:2b"]')).toContainText(
    `On: ${FAKE_OLLAMA_URL}`,
  );

  await page.getByLabel("Pull a model by name").fill("phi3:mini");
  await page.getByLabel("Pull onto").selectOption(FAKE_OLLAMA_URL);
  await page.getByTestId("pull-start").click();
  await expect(page.getByTestId("pull-done")).toHaveText("phi3:mini is installed and can be picked now.");
  const pulls = (await fakeOllama.requests()).filter((r) => r.path === "/api/pull");
  expect(pulls).toHaveLength(1);
  await expect(page.locator('[data-testid="installed-model"][data-model="phi3:mini"]')).toBeVisible();
});

test("at 390 px wide the servers read without overflowing", async ({ page }) => {
  await page.setViewportSize({ width: 390, height: 800 });
  await page.goto(`${base}/settings`);
  const servers = page.getByTestId("ollama-servers");
  await expect(servers.getByTestId("ollama-server")).toHaveCount(2);
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  expect(overflow).toBeLessThanOrEqual(0);
});
