import { expect, test } from "@playwright/test";
import { ChatPage } from "./pages/chat-page";
import { fakeOllama } from "./support/fake-ollama";
import { unique } from "./support/unique";

test.beforeEach(async () => {
  await fakeOllama.reset();
});

test("regenerate keeps the earlier answer as a version: ‹ 2/2 ›, back to 1/2, and a reload keeps the choice", async ({
  page,
}) => {
  const chat = new ChatPage(page);
  await fakeOllama.script({ when: { stream: true }, content: "First answer." });
  await chat.startConversation(unique("Tell me about quokkas"));
  await chat.expectAnswerDone();

  await fakeOllama.script({ when: { stream: true }, content: "Second answer." });
  await chat.lastAnswer.getByTestId("regenerate-button").click();
  await expect(chat.lastAnswer.getByTestId("answer-text")).toHaveText("Second answer.");
  await chat.expectAnswerDone();
  await expect(chat.lastAnswer.getByRole("group", { name: "Version 2 of 2" })).toBeVisible();
  await expect(chat.lastAnswer.getByTestId("version-label")).toHaveText("2/2");
  await expect(chat.userMessages).toHaveCount(1);
  await expect(chat.assistantMessages).toHaveCount(1);

  await chat.lastAnswer.getByRole("button", { name: "Previous version" }).click();
  await expect(chat.lastAnswer.getByTestId("answer-text")).toHaveText("First answer.");
  await expect(chat.lastAnswer.getByRole("group", { name: "Version 1 of 2" })).toBeVisible();

  await page.reload();
  await expect(chat.lastAnswer.getByTestId("answer-text")).toHaveText("First answer.");
  await expect(chat.lastAnswer.getByRole("group", { name: "Version 1 of 2" })).toBeVisible();

  // By keyboard: the switcher keeps the focus on the button that was pressed.
  const next = chat.lastAnswer.getByRole("button", { name: "Next version" });
  await next.focus();
  await page.keyboard.press("Enter");
  await expect(chat.lastAnswer.getByTestId("answer-text")).toHaveText("Second answer.");
  await expect(chat.lastAnswer.getByRole("button", { name: "Next version" })).toBeFocused();
  await expect(chat.lastAnswer.getByRole("button", { name: "Next version" })).toHaveAttribute("aria-disabled", "true");
});

test("editing the first question of a two-turn chat starts a new branch; Esc cancels, Enter sends, the old branch stays", async ({
  page,
}) => {
  const chat = new ChatPage(page);
  const first = unique("First question");
  const second = unique("Second question");
  await chat.startConversation(first);
  await chat.expectAnswerDone();
  await chat.send(second);
  await expect(chat.userMessages).toHaveCount(2);
  await chat.expectAnswerDone();

  const firstQuestion = chat.userMessages.first();
  await firstQuestion.getByRole("button", { name: "Edit message" }).click();
  const input = page.getByTestId("edit-message-input");
  await input.fill("never sent");
  await input.press("Escape");
  await expect(input).toHaveCount(0);
  await expect(chat.userMessages).toHaveCount(2);
  await expect(chat.userMessages.first()).toContainText(first);

  const edited = unique("First question, rephrased");
  await chat.userMessages.first().getByRole("button", { name: "Edit message" }).click();
  await input.fill(edited);
  await input.press("Shift+Enter");
  await input.pressSequentially("second line");
  await expect(input).toHaveValue(`${edited}\nsecond line`);
  await input.press("Enter");
  await chat.expectAnswerDone();
  await expect(chat.userMessages).toHaveCount(1);
  await expect(chat.userMessages.first()).toContainText(edited);
  await expect(chat.lastAnswer.getByTestId("answer-text")).toContainText(edited);
  await expect(chat.userMessages.first().getByRole("group", { name: "Version 2 of 2" })).toBeVisible();

  await chat.userMessages.first().getByRole("button", { name: "Previous version" }).click();
  await expect(chat.userMessages).toHaveCount(2);
  await expect(chat.userMessages.first()).toContainText(first);
  await expect(chat.userMessages.last()).toContainText(second);

  await page.reload();
  await expect(chat.userMessages).toHaveCount(2);
  await expect(chat.userMessages.first().getByRole("group", { name: "Version 1 of 2" })).toBeVisible();
});

test("while an answer is written, edit, regenerate and switching wait and say why", async ({ page }) => {
  const chat = new ChatPage(page);
  await chat.startConversation(unique("Tell me about wombats"));
  await chat.expectAnswerDone();
  // The answer never comes: the run works until it is stopped.
  await fakeOllama.script({ when: { stream: true }, hang: true });
  await chat.send(unique("And more"));
  await expect(chat.stopButton).toBeVisible();

  const edit = chat.userMessages.first().getByRole("button", { name: "Edit message" });
  await expect(edit).toHaveAttribute("aria-disabled", "true");
  await expect(edit).toHaveAccessibleDescription(/Wait for the answer to finish, or stop it/);
  // Playwright's click would wait for the button to be enabled: press it by keyboard instead.
  await edit.focus();
  await page.keyboard.press("Enter");
  await expect(page.getByTestId("edit-message-input")).toHaveCount(0);
  await expect(chat.stopButton).toBeVisible();
  const regenerate = chat.assistantMessages.first().getByTestId("regenerate-button");
  await expect(regenerate).toHaveAttribute("aria-disabled", "true");
  await expect(regenerate).toHaveAccessibleDescription(/Wait for the answer to finish, or stop it/);

  await chat.stopButton.click();
  await chat.expectAnswerDone("stopped");
  await expect(chat.userMessages.first().getByRole("button", { name: "Edit message" })).not.toHaveAttribute(
    "aria-disabled",
    "true",
  );
});
