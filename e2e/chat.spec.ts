import { expect, test } from "@playwright/test";
import { ChatPage } from "./pages/chat-page";
import { fakeOllama } from "./support/fake-ollama";
import { unique } from "./support/unique";

test.beforeEach(async () => {
  await fakeOllama.reset();
});

test("a first message creates a conversation whose answer streams in as Markdown and survives a reload", async ({
  page,
}) => {
  const chat = new ChatPage(page);
  const question = unique("Hello from the e2e test");
  const id = await chat.startConversation(question);

  await expect(chat.userMessages).toHaveCount(1);
  await expect(chat.userMessages.first()).toHaveText(question);
  await chat.expectAnswerDone("complete");
  // `**Echo:**` arrives as Markdown and is rendered bold, with the list after it.
  await expect(chat.lastAnswer.locator("strong", { hasText: "Echo:" })).toBeVisible();
  await expect(chat.lastAnswer.getByRole("listitem")).toHaveText(["item one", "item two"]);
  await expect(chat.lastAnswer.getByTestId("message-footer")).toContainText("llama3.2:latest");
  await expect(chat.conversation(question)).toHaveAttribute("data-active", "true");
  await expect(chat.title).toHaveText(question);

  const [request] = await fakeOllama.chatRequests();
  expect(request?.body.messages.at(-1)).toMatchObject({ role: "user", content: question });

  await page.reload();
  expect(chat.conversationId()).toBe(id);
  await expect(chat.userMessages).toHaveText([question]);
  await expect(chat.lastAnswer).toHaveAttribute("data-status", "complete");
  await expect(chat.lastAnswer.locator("strong", { hasText: "Echo:" })).toBeVisible();
  await expect(chat.lastAnswer).toContainText(question);
});

test("a follow-up question in the same conversation sends the earlier turns along", async ({ page }) => {
  const chat = new ChatPage(page);
  const first = unique("First question");
  await chat.startConversation(first);
  await chat.expectAnswerDone();

  await chat.send("And a second one");
  await expect(chat.userMessages).toHaveText([first, "And a second one"]);
  await expect(chat.assistantMessages).toHaveCount(2);
  await chat.expectAnswerDone();
  await expect(chat.lastAnswer).toContainText("Echo: And a second one");

  const requests = await fakeOllama.chatRequests();
  const roles = requests.at(-1)?.body.messages.map((m: { role: string }) => m.role);
  expect(roles).toEqual(["system", "user", "assistant", "user"]);
});

test("switching conversations shows each one's messages, and back/forward follow the URL", async ({ page }) => {
  const chat = new ChatPage(page);
  const first = unique("Conversation A");
  const second = unique("Conversation B");
  const firstId = await chat.startConversation(first);
  await chat.expectAnswerDone();
  const secondId = await chat.startConversation(second);
  await chat.expectAnswerDone();

  await chat.conversation(first).getByRole("link").click();
  await expect(page).toHaveURL(`/c/${firstId}`);
  await expect(chat.userMessages).toHaveText([first]);
  await expect(chat.title).toHaveText(first);

  await chat.conversation(second).getByRole("link").click();
  await expect(page).toHaveURL(`/c/${secondId}`);
  await expect(chat.userMessages).toHaveText([second]);

  await page.goBack();
  await expect(page).toHaveURL(`/c/${firstId}`);
  await expect(chat.userMessages).toHaveText([first]);
  await page.goForward();
  await expect(page).toHaveURL(`/c/${secondId}`);
  await expect(chat.userMessages).toHaveText([second]);

  await chat.newChatButton.click();
  await expect(page).toHaveURL("/");
  await expect(chat.userMessages).toHaveCount(0);
});

test("Enter sends, Shift+Enter adds a line, and an empty message cannot be sent", async ({ page }) => {
  const chat = new ChatPage(page);
  await chat.open("/");
  await expect(chat.sendButton).toBeDisabled();
  await chat.composer.fill("   ");
  await expect(chat.sendButton).toBeDisabled();
  await chat.composer.press("Enter");
  await expect(page).toHaveURL("/");

  await chat.composer.fill("");
  await chat.composer.pressSequentially("line one");
  await chat.composer.press("Shift+Enter");
  await chat.composer.pressSequentially("line two");
  await expect(chat.composer).toHaveValue("line one\nline two");
  await expect(page).toHaveURL("/");
  expect(await fakeOllama.chatRequests()).toHaveLength(0);

  await chat.composer.press("Enter");
  await page.waitForURL(/\/c\//);
  await expect(chat.userMessages.first()).toHaveText("line one\nline two");
  await expect(chat.composer).toHaveValue("");
  await chat.expectAnswerDone();
});

test("the model picker shows capabilities, warns about a model without tools, and the choice is used and kept", async ({
  page,
}) => {
  const chat = new ChatPage(page);
  await chat.open("/");
  await chat.modelPicker.click();
  const options = page.getByRole("option");
  // Ollama's four, first; the OpenAI-compatible servers' after them (e2e/openai-compatible.spec.ts).
  await expect(page.getByRole("group", { name: "Ollama" }).getByRole("option")).toHaveCount(4);
  const qwen = options.filter({ hasText: "qwen3:8b" });
  await expect(qwen.locator("[data-capability]")).toHaveText(["tools", "thinking"]);
  await expect(options.filter({ hasText: "llava:7b" }).locator("[data-capability]")).toContainText(["vision"]);
  await expect(options.filter({ hasText: "gemma:2b" })).toContainText("no tools");
  await page.keyboard.press("Escape");
  await expect(options).toHaveCount(0);
  await expect(chat.modelPicker).toBeFocused();

  await chat.chooseModel("gemma:2b");
  await expect(page.getByTestId("model-tools-warning")).toContainText("gemma:2b cannot call tools");

  const question = unique("Which model answers");
  await chat.send(question);
  await page.waitForURL(/\/c\//);
  await chat.expectAnswerDone();
  expect((await fakeOllama.chatRequests()).at(-1)?.body.model).toBe("gemma:2b");

  // Switching the model of an existing conversation is stored with it.
  await chat.chooseModel("qwen3:8b");
  await expect(page.getByTestId("model-tools-warning")).toHaveCount(0);
  await page.reload();
  await expect(chat.modelPicker).toHaveAccessibleName("Model: qwen3:8b");
  await chat.send("Now with qwen");
  await expect(chat.assistantMessages).toHaveCount(2);
  await chat.expectAnswerDone();
  expect((await fakeOllama.chatRequests()).at(-1)?.body.model).toBe("qwen3:8b");
});

test("a request refused before streaming shows the server's message and keeps the typed text", async ({ page }) => {
  const chat = new ChatPage(page);
  const id = await chat.startConversation(unique("Model that will vanish"));
  await chat.expectAnswerDone();
  const patched = await page.request.patch(`/api/conversations/${id}`, { data: { model: "ghost-model:1b" } });
  expect(patched.ok()).toBe(true);

  await page.reload();
  await expect(page.getByTestId("model-tools-warning")).toContainText("ghost-model:1b is not installed");
  await chat.send("This should not be lost");
  await expect(chat.composerError).toContainText("ghost-model:1b");
  await expect(chat.composer).toHaveValue("This should not be lost");
  await expect(chat.userMessages).toHaveCount(1);
  await expect(chat.sendButton).toBeEnabled();
});
