import { expect, test } from "@playwright/test";
import { ChatPage } from "./pages/chat-page";
import { fakeOllama } from "./support/fake-ollama";
import { unique } from "./support/unique";

test.beforeEach(async () => {
  await fakeOllama.reset();
});

test("Stop ends a slow answer: the partial text stays, it is marked stopped, and Ollama's request is aborted", async ({
  page,
}) => {
  const chat = new ChatPage(page);
  await chat.startConversation(`[slow] ${unique("Count slowly")}`);

  await expect(chat.lastAnswer).toHaveAttribute("data-status", "streaming");
  await expect(chat.stopButton).toBeVisible();
  await expect(chat.sendButton).toHaveCount(0);
  await expect(chat.lastAnswer).toContainText("line 3");
  await chat.stopButton.click();

  await chat.expectAnswerDone("stopped");
  await expect(chat.lastAnswer.getByTestId("message-status")).toHaveText("Stopped");
  await expect(chat.lastAnswer.locator("strong", { hasText: "Echo:" })).toBeVisible();
  await expect(chat.lastAnswer).toContainText("line 3");
  await expect(chat.lastAnswer).not.toContainText("line 39");
  await expect(chat.sendButton).toBeVisible();

  // The streamed answer's request to Ollama was cut off, not left running.
  await expect
    .poll(async () => (await fakeOllama.streamedChatRequests()).map((request) => request.aborted))
    .toEqual([true]);

  await page.reload();
  await chat.expectAnswerDone("stopped");
  await expect(chat.lastAnswer).toContainText("line 3");
});

test("a run that fails shows the error under the answer, also after a reload", async ({ page }) => {
  const chat = new ChatPage(page);
  await fakeOllama.script({ errorStatus: 500, error: "model runner has unexpectedly stopped" });
  await chat.startConversation(unique("This will break"));

  await chat.expectAnswerDone("error");
  await expect(chat.lastAnswer.getByTestId("message-status")).toHaveText("Error");
  await expect(chat.lastAnswer.getByTestId("message-error")).toContainText("model runner has unexpectedly stopped");
  await expect(chat.sendButton).toBeVisible();

  await page.reload();
  await chat.expectAnswerDone("error");
  await expect(chat.lastAnswer.getByTestId("message-error")).toContainText("model runner has unexpectedly stopped");
  // The stored "**Error:** …" line is shown once, as the notice, not again in the text.
  await expect(chat.lastAnswer.getByText("model runner has unexpectedly stopped")).toHaveCount(1);
});

test("after a reload mid-answer the run is shown as in progress, can be stopped, and ends stopped", async ({
  page,
}) => {
  const chat = new ChatPage(page);
  await chat.startConversation(`[slow] ${unique("Reload me")}`);
  await expect(chat.lastAnswer).toContainText("line 2");

  await page.reload();
  await expect(chat.lastAnswer).toHaveAttribute("data-status", "streaming");
  await expect(chat.lastAnswer).toContainText("being written");
  await chat.stopButton.click();

  await chat.expectAnswerDone("stopped");
  await expect(chat.lastAnswer.locator("strong", { hasText: "Echo:" })).toBeVisible();
  // The streamed answer's request to Ollama was cut off, not left running.
  await expect
    .poll(async () => (await fakeOllama.streamedChatRequests()).map((request) => request.aborted))
    .toEqual([true]);
});

test("an answer keeps streaming while another conversation is open", async ({ page }) => {
  const chat = new ChatPage(page);
  const other = unique("Quiet conversation");
  await chat.startConversation(other);
  await chat.expectAnswerDone();
  const slowQuestion = `[slow] ${unique("Background")}`;
  const slowId = await chat.startConversation(slowQuestion);
  await expect(chat.lastAnswer).toContainText("line 1");

  await chat.conversation(other).getByRole("link").click();
  await expect(chat.userMessages).toHaveText([other]);
  await expect(chat.conversation(/Background/).getByLabel("Answering")).toBeVisible();

  await chat
    .conversation(/Background/)
    .getByRole("link")
    .click();
  await expect(page).toHaveURL(`/c/${slowId}`);
  await expect(chat.lastAnswer).toHaveAttribute("data-status", "streaming");
  await expect(chat.lastAnswer).toContainText("line 20");
  await chat.stopButton.click();
  await chat.expectAnswerDone("stopped");
});
