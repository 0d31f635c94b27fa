import fs from "node:fs";
import { expect, type Page, test } from "@playwright/test";
import { ChatPage } from "./pages/chat-page";
import { fakeOllama } from "./support/fake-ollama";
import { unique } from "./support/unique";

test.beforeEach(async () => {
  await fakeOllama.reset();
});

/** Opens the chat header's Export menu from the keyboard: the first entry takes the focus. */
async function openExportMenu(page: Page): Promise<void> {
  await page.getByTestId("export-button").focus();
  await page.keyboard.press("Enter");
  await expect(page.getByTestId("export-md")).toBeFocused();
}

async function download(page: Page, testId: string): Promise<{ name: string; text: string; path: string }> {
  const started = page.waitForEvent("download");
  await page.getByTestId(testId).click();
  const file = await started;
  const path = (await file.path()) ?? "";
  return { name: file.suggestedFilename(), text: fs.readFileSync(path, "utf8"), path };
}

async function importFile(page: Page, file: { name: string; mimeType: string; buffer: Buffer }): Promise<void> {
  await page.goto("/settings");
  const section = page.getByRole("region", { name: "Your data" });
  await expect(section).toBeVisible();
  await section.getByLabel("Import conversations").setInputFiles(file);
  await expect(page.getByTestId("import-report")).toBeVisible();
}

test("a conversation exported as JSON and imported in Settings opens as a new conversation with the same thread", async ({
  page,
}) => {
  const chat = new ChatPage(page);
  const question = unique("Export me");
  const originalId = await chat.startConversation(question);
  await chat.expectAnswerDone();
  await chat.send("And a second question");
  await expect(chat.assistantMessages).toHaveCount(2);
  await chat.expectAnswerDone();
  const answers = await chat.assistantMessages.getByTestId("answer-text").allInnerTexts();

  await openExportMenu(page);
  const markdown = await download(page, "export-md");
  expect(markdown.name).toMatch(/\.md$/);
  expect(markdown.text).toContain(question);
  expect(markdown.text).toContain("## Assistant");
  await openExportMenu(page);
  const json = await download(page, "export-json-files");
  expect(json.name).toMatch(/\.json$/);
  expect(JSON.parse(json.text)).toMatchObject({ format: "ollama-web.conversation", version: 3 });

  await importFile(page, { name: json.name, mimeType: "application/json", buffer: Buffer.from(json.text) });
  const report = page.getByTestId("import-report");
  await expect(report).toContainText("1 conversation imported.");
  await expect(page.getByTestId("import-skipped")).toHaveCount(0);
  await report.getByRole("link", { name: question }).click();
  await page.waitForURL(/\/c\/[^/]+$/);
  expect(chat.conversationId()).not.toBe(originalId);
  await expect(chat.userMessages).toHaveText([question, "And a second question"]);
  await expect(chat.assistantMessages.getByTestId("answer-text")).toHaveText(answers);
  // The sidebar lists both: the original and its imported copy.
  await expect(chat.conversation(question)).toHaveCount(2);
});

test("a menu from the keyboard: arrows, Home and End move between its items, Escape closes it and gives the focus back, a press outside closes it", async ({
  page,
}) => {
  const chat = new ChatPage(page);
  await chat.startConversation(unique("Menu keys"));
  await chat.expectAnswerDone();
  const button = page.getByTestId("export-button");
  const panel = page.getByTestId("export-panel");

  await openExportMenu(page);
  await expect(button).toHaveAttribute("aria-expanded", "true");
  await page.keyboard.press("ArrowDown");
  await expect(page.getByTestId("export-json")).toBeFocused();
  await page.keyboard.press("End");
  await expect(page.getByTestId("export-json-files")).toBeFocused();
  await page.keyboard.press("ArrowDown");
  await expect(page.getByTestId("export-md")).toBeFocused();
  await page.keyboard.press("ArrowUp");
  await expect(page.getByTestId("export-json-files")).toBeFocused();
  await page.keyboard.press("Home");
  await expect(page.getByTestId("export-md")).toBeFocused();

  await page.keyboard.press("Escape");
  await expect(panel).toHaveCount(0);
  await expect(button).toBeFocused();
  await expect(button).toHaveAttribute("aria-expanded", "false");

  await openExportMenu(page);
  // The header's title, left of the panel (which covers the thread's right side).
  await chat.title.click();
  await expect(panel).toHaveCount(0);
});

test("the import report lists what was skipped, with the reason", async ({ page }) => {
  const document = {
    format: "ollama-web.conversation",
    version: 4,
    conversation: { title: unique("From the future") },
  };
  await importFile(page, {
    name: "future.json",
    mimeType: "application/json",
    buffer: Buffer.from(JSON.stringify(document)),
  });
  await expect(page.getByTestId("import-report")).toContainText("Nothing imported, 1 item skipped:");
  await expect(page.getByTestId("import-skipped")).toHaveText([
    `${document.conversation.title}: Export version 4 cannot be read here (this server reads versions 1, 2, 3).`,
  ]);
});

const sizes = [
  { name: "wide", viewport: { width: 1280, height: 800 } },
  { name: "narrow", viewport: { width: 390, height: 844 } },
] as const;

for (const size of sizes) {
  for (const scheme of ["light", "dark"] as const) {
    test(`artifact: the export menu and the import report, ${size.name}, ${scheme}`, async ({ page }) => {
      await page.setViewportSize(size.viewport);
      await page.emulateMedia({ colorScheme: scheme });
      const chat = new ChatPage(page);
      const question = unique("Screenshot export");
      await chat.startConversation(question);
      await chat.expectAnswerDone();
      await openExportMenu(page);
      await chat.screenshot("export-menu");
      const json = await download(page, "export-json");
      await importFile(page, { name: json.name, mimeType: "application/json", buffer: Buffer.from(json.text) });
      await expect(page.getByTestId("import-imported")).toHaveCount(1);
      await page.getByTestId("import-report").scrollIntoViewIfNeeded();
      await chat.screenshot("import-report");
      await page.getByLabel("Import conversations").setInputFiles({
        name: "old.json",
        mimeType: "application/json",
        buffer: Buffer.from(JSON.stringify({ ...JSON.parse(json.text), version: 4 })),
      });
      await expect(page.getByTestId("import-skipped")).toHaveCount(1);
      await chat.screenshot("import-report-skipped");
    });
  }
}
