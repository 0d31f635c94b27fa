import { expect, type Page, test } from "@playwright/test";
import { ChatPage } from "./pages/chat-page";
import { fakeOllama } from "./support/fake-ollama";
import { FAKE_OLLAMA_URL } from "./support/servers";

test.beforeEach(async () => {
  await fakeOllama.reset();
});

async function openModels(page: Page) {
  await page.goto("/settings");
  await expect(page.getByTestId("settings-models")).toBeVisible();
}

const installed = (page: Page, model: string) => page.locator(`[data-testid="installed-model"][data-model="${model}"]`);

test("pull with live progress: bytes, percent and speed, then the model is in every picker", async ({ page }) => {
  await fakeOllama.registry({ chunksPerLayer: 25, chunkDelayMs: 60 });
  await openModels(page);
  await page.getByLabel("Pull a model by name").fill("phi3:mini");
  await page.getByTestId("pull-start").click();
  const progress = page.getByTestId("pull-progress");
  await expect(progress.getByRole("progressbar", { name: "Pulling phi3:mini" })).toHaveAttribute(
    "aria-valuenow",
    /^[1-9]\d*$/,
  );
  await expect(page.getByTestId("pull-bytes")).toHaveText(/ of .* · \d+% · .*\/s$/);
  await expect(page.getByTestId("pull-done")).toHaveText("phi3:mini is installed and can be picked now.");
  await expect(progress).toBeHidden();
  await expect(installed(page, "phi3:mini")).toBeVisible();
  // The role pickers on the same page have it without a reload…
  await expect(page.getByTestId("role-fast").locator('option[value="phi3:mini"]')).toHaveCount(1);
  // …and so does the composer's.
  const chat = new ChatPage(page);
  await chat.open();
  await chat.chooseModel("phi3:mini");
});

test("Cancel stops the download: the UI says so, Ollama's request is closed and nothing is installed", async ({
  page,
}) => {
  await fakeOllama.registry({ chunksPerLayer: 200, chunkDelayMs: 100 });
  await openModels(page);
  await page.getByLabel("Pull a model by name").fill("mistral:7b");
  await page.keyboard.press("Enter");
  await expect(page.getByRole("progressbar")).toHaveAttribute("aria-valuenow", /\d/);
  await page.getByTestId("pull-cancel").click();
  await expect(page.getByTestId("pull-progress")).toBeHidden();
  await expect(page.getByTestId("pull-cancelled")).toHaveText(
    "Pulling mistral:7b was cancelled. Pulling it again resumes where it stopped.",
  );
  const pulls = async () => (await fakeOllama.requests()).filter((r) => r.path === "/api/pull");
  await expect.poll(async () => (await pulls()).map((r) => r.aborted)).toEqual([true]);
  await expect(installed(page, "mistral:7b")).toHaveCount(0);
  await expect(page.getByTestId("pull-name")).toHaveValue("mistral:7b");
});

test("an unknown name says so in plain words, with Ollama's own", async ({ page }) => {
  await openModels(page);
  await page.getByLabel("Pull a model by name").fill("no-such-model");
  await page.getByTestId("pull-start").click();
  const error = page.getByTestId("pull-error");
  await expect(error).toHaveAttribute("data-code", "not_found:registry_model");
  await expect(error).toContainText("The registry has no model “no-such-model”.");
  await expect(error).toContainText("file does not exist");
});

test("delete asks first; confirmed, the model is gone from the list and the pickers", async ({ page }) => {
  await openModels(page);
  const row = installed(page, "gemma:2b");
  await row.getByRole("button", { name: "Delete gemma:2b" }).click();
  const dialog = page.getByRole("dialog", { name: "Delete this model?" });
  await expect(dialog).toContainText("gemma:2b will be removed from Ollama.");
  await page.keyboard.press("Escape");
  await expect(dialog).toBeHidden();
  await expect(row).toBeVisible();

  await row.getByRole("button", { name: "Delete gemma:2b" }).click();
  await dialog.getByTestId("confirm-model-delete").click();
  await expect(dialog).toBeHidden();
  await expect(row).toHaveCount(0);
  await expect(page.getByTestId("role-fast").locator('option[value="gemma:2b"]')).toHaveCount(0);
  expect((await fakeOllama.requests()).some((r) => r.method === "DELETE" && r.path === "/api/delete")).toBe(true);
});

test("Loaded now shows a loaded model with its VRAM size and expiry; Unload frees it", async ({ page }) => {
  await fetch(`${FAKE_OLLAMA_URL}/api/chat`, {
    method: "POST",
    body: JSON.stringify({ model: "llama3.2:latest", messages: [{ role: "user", content: "hi" }], keep_alive: "10m" }),
  }).then((response) => response.text());
  await openModels(page);
  const row = page.locator('[data-testid="loaded-model"][data-model="llama3.2:latest"]');
  await expect(row).toContainText(/in VRAM · unloads in (9|10) minutes/);
  await row.getByRole("button", { name: "Unload llama3.2:latest" }).click();
  await expect(row).toHaveCount(0);
  await expect(page.getByTestId("loaded-models")).toContainText("No model is loaded.");
});
