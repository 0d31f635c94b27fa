import { expect, test } from "@playwright/test";
import { encodedImage } from "../tests/support/image-fixtures";
import { ChatPage } from "./pages/chat-page";
import { fakeOllama } from "./support/fake-ollama";
import { unique } from "./support/unique";

test.beforeEach(async () => {
  await fakeOllama.reset();
});

test.afterEach(async ({ page }) => {
  await page.request.patch("/api/settings", { data: { roles: { vision: null } } });
});

const PHOTO = { name: "photo.png", mimeType: "image/png", buffer: encodedImage("png", 64, 48) };

test("an image for a model without vision: the chip says so, and the routed turn shows the vision model", async ({
  page,
}) => {
  const chat = new ChatPage(page);
  await chat.startConversation(unique("First, no image"));
  await chat.expectAnswerDone();

  await chat.attach(PHOTO);
  const warning = page.getByTestId("attachment-vision-warning");
  await expect(warning).toContainText("llama3.2:latest can’t see images — set a vision model in Settings");
  await chat.send("What is in this picture?");
  await expect(chat.composerError).toContainText("can’t see images");
  await expect(chat.composer).toHaveValue("What is in this picture?");
  await expect(chat.attachmentChips).toHaveCount(1);

  expect((await page.request.patch("/api/settings", { data: { roles: { vision: "llava:7b" } } })).ok()).toBe(true);
  await page.reload();
  await chat.attach(PHOTO);
  await expect(warning).toContainText("the vision model llava:7b will answer this turn");
  await chat.send("What is in this picture?");
  await expect(chat.userMessages).toHaveCount(2);
  await chat.expectAnswerDone();
  await expect(chat.lastAnswer.getByTestId("message-footer")).toContainText("llava:7b");
  expect((await fakeOllama.chatRequests()).some((request) => request.body.model === "llava:7b")).toBe(true);
});

test("a model removed while the page is open is noticed on focus, and its replacement sends in one click", async ({
  page,
}) => {
  const chat = new ChatPage(page);
  await chat.open();
  await chat.chooseModel("qwen3:8b");
  await chat.startConversation(unique("Before the model goes"));
  await chat.expectAnswerDone();

  await fakeOllama.deleteModel("qwen3:8b");
  const modelReads: string[] = [];
  page.on("request", (request) => {
    if (new URL(request.url()).pathname === "/api/models") modelReads.push(request.url());
  });
  await page.evaluate(() => window.dispatchEvent(new Event("focus")));
  const replace = page.getByTestId("model-replacement");
  await expect(replace).toHaveText("Use llama3.2:latest");
  // Every picker on the page shares one focus listener: one read of the list, not one per picker.
  expect(modelReads).toHaveLength(1);
  await replace.click();
  await expect(chat.modelPicker).toHaveAccessibleName("Model: llama3.2:latest");
  await chat.send("After the model went");
  await chat.expectAnswerDone();
  await expect(chat.assistantMessages).toHaveCount(2);
  await expect(chat.lastAnswer.getByTestId("message-footer")).toContainText("llama3.2:latest");
});

test("a plain answer's footer names no mode or iteration and shows tokens per second", async ({ page }) => {
  const chat = new ChatPage(page);
  await chat.startConversation(unique("Just say hello"));
  await chat.expectAnswerDone();
  const footer = chat.lastAnswer.getByTestId("message-footer");
  await expect(footer).toContainText(/tokens\/s/);
  await expect(footer).not.toContainText("iteration");
  await expect(footer).not.toContainText("native tools");
});
