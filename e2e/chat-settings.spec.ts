import { expect, type Page, test } from "@playwright/test";
import { ChatPage } from "./pages/chat-page";
import { fakeOllama, type RecordedRequest } from "./support/fake-ollama";
import { unique } from "./support/unique";

test.beforeEach(async () => {
  await fakeOllama.reset();
});

test.afterEach(async ({ page }) => {
  const { presets } = (await (await page.request.get("/api/presets")).json()) as { presets: { id: string }[] };
  for (const preset of presets) await page.request.delete(`/api/presets/${preset.id}`);
});

const systemOf = (request: RecordedRequest): string =>
  (request.body.messages as { role: string; content: string }[]).find((m) => m.role === "system")?.content ?? "";

function settingsDialog(page: Page) {
  const dialog = page.getByTestId("chat-settings-dialog");
  return {
    dialog,
    instructions: dialog.getByLabel("Instructions"),
    temperature: dialog.getByLabel("Temperature"),
    save: dialog.getByTestId("chat-settings-save"),
  };
}

test("a chat's instructions and temperature set in its panel reach Ollama on the next turn, and a reload keeps them", async ({
  page,
}) => {
  const chat = new ChatPage(page);
  await chat.startConversation(unique("Before the settings"));
  await chat.expectAnswerDone();

  // Keyboard: the header button opens the dialog, which shows the defaults for empty fields.
  const button = page.getByRole("button", { name: "Chat settings" });
  await button.focus();
  await page.keyboard.press("Enter");
  const panel = settingsDialog(page);
  await expect(panel.dialog).toBeVisible();
  await expect(panel.instructions).toBeFocused();
  await expect(panel.temperature).toHaveAttribute("placeholder", "Model default");
  await expect(panel.dialog.getByLabel("Context size (tokens)")).toHaveAttribute("placeholder", /Default: \d+/);
  await panel.instructions.fill("Answer as a ship's captain would.");
  await panel.temperature.fill("0.4");
  await panel.save.click();
  await expect(panel.dialog).toBeHidden();
  await expect(button).toHaveAttribute("data-custom", "true");

  await fakeOllama.reset();
  await chat.send("Ahoy?");
  await expect(chat.assistantMessages).toHaveCount(2);
  await chat.expectAnswerDone();
  const requests = await fakeOllama.chatRequests();
  expect(requests.length).toBeGreaterThan(0);
  for (const request of requests) {
    expect(systemOf(request)).toContain("Answer as a ship's captain would.");
    expect(request.body.options.temperature).toBe(0.4);
  }

  await page.reload();
  await button.click();
  await expect(panel.instructions).toHaveValue("Answer as a ship's captain would.");
  await expect(panel.temperature).toHaveValue("0.4");
  // Reset empties every field; Escape leaves without saving, so the chat keeps its settings.
  await panel.dialog.getByTestId("chat-settings-reset").click();
  await expect(panel.instructions).toHaveValue("");
  await page.keyboard.press("Escape");
  await expect(panel.dialog).toBeHidden();
  await button.click();
  await expect(panel.instructions).toHaveValue("Answer as a ship's captain would.");
});

test("a value out of range is refused with the server's reason, and nothing is saved", async ({ page }) => {
  const chat = new ChatPage(page);
  await chat.startConversation(unique("Out of range"));
  await chat.expectAnswerDone();
  await page.getByRole("button", { name: "Chat settings" }).click();
  const panel = settingsDialog(page);
  await panel.temperature.fill("5");
  await panel.save.click();
  await expect(panel.dialog.getByTestId("chat-settings-error")).toContainText("temperature");
  await expect(panel.dialog).toBeVisible();
  const id = chat.conversationId();
  const detail = (await (await page.request.get(`/api/conversations/${id}`)).json()) as {
    conversation: { settings: unknown };
  };
  expect(detail.conversation.settings).toEqual({});
});

test("a preset chosen on a new chat gives it the preset's model and instructions", async ({ page }) => {
  const created = await page.request.post("/api/presets", {
    data: { name: "Haiku poet", model: "qwen3:8b", settings: { instructions: "Reply only in haiku.", seed: 11 } },
  });
  expect(created.status()).toBe(201);
  const chat = new ChatPage(page);
  await chat.open("/");
  await page.getByRole("combobox", { name: "Preset" }).selectOption({ label: "Haiku poet" });
  await expect(chat.modelPicker).toHaveAccessibleName("Model: qwen3:8b");
  await chat.send(unique("Write about the sea"));
  await page.waitForURL(/\/c\/[^/]+$/);
  await chat.expectAnswerDone();

  const answer = (await fakeOllama.chatRequests()).find((request) =>
    systemOf(request).includes("Reply only in haiku."),
  );
  expect(answer?.body.model).toBe("qwen3:8b");
  expect(answer?.body.options.seed).toBe(11);
  await page.getByRole("button", { name: "Chat settings" }).click();
  await expect(settingsDialog(page).instructions).toHaveValue("Reply only in haiku.");
  await expect(settingsDialog(page).dialog.getByLabel("Seed")).toHaveValue("11");
});

test("the default preset applies to a new chat without choosing it", async ({ page }) => {
  await page.request.post("/api/presets", {
    data: { name: "Mine", settings: { instructions: "I am a nurse." }, isDefault: true },
  });
  const chat = new ChatPage(page);
  await chat.open("/");
  await expect(page.getByRole("combobox", { name: "Preset" })).toHaveValue("");
  await expect(page.getByRole("combobox", { name: "Preset" })).toContainText("Preset: Mine (default)");
  await chat.send(unique("What is triage?"));
  await page.waitForURL(/\/c\/[^/]+$/);
  await chat.expectAnswerDone();
  expect((await fakeOllama.chatRequests()).some((request) => systemOf(request).includes("I am a nurse."))).toBe(true);
});

const schemes = ["light", "dark"] as const;
const sizes = [
  { name: "wide", viewport: { width: 1280, height: 800 } },
  { name: "narrow", viewport: { width: 390, height: 844 } },
] as const;

// Screenshot artifacts for people to look at (test-results/screens): nothing compares them.
for (const size of sizes) {
  test.describe(`chat settings screenshots at ${size.name}`, () => {
    test.use({ viewport: size.viewport });
    for (const scheme of schemes) {
      test(`artifact: the chat settings panel and presets in ${scheme} mode`, async ({ page }) => {
        await page.emulateMedia({ colorScheme: scheme });
        const chat = new ChatPage(page);
        await chat.startConversation(unique("Screenshots of the settings"));
        await chat.expectAnswerDone();
        await page.getByRole("button", { name: "Chat settings" }).click();
        const panel = settingsDialog(page);
        await panel.instructions.fill("Answer in short paragraphs. I am new to programming.");
        await panel.temperature.fill("0.7");
        await chat.screenshot("chat-settings");
        await page.keyboard.press("Escape");

        await page.request.post("/api/presets", {
          data: { name: "Custom instructions", settings: { instructions: "I am a nurse." }, isDefault: true },
        });
        await page.goto("/settings");
        await expect(page.getByTestId("preset-row")).toHaveCount(1);
        await page.getByTestId("new-preset").click();
        await page.getByTestId("preset-name").fill("Translator");
        await page.getByTestId("settings-presets").scrollIntoViewIfNeeded();
        await chat.screenshot("presets");
      });
    }
  });
}
