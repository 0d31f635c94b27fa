import { expect, test } from "@playwright/test";
import { ChatPage } from "./pages/chat-page";
import { fakeOllama, slowAnswer } from "./support/fake-ollama";
import { FAKE_WEB_URL } from "./support/servers";
import { unique } from "./support/unique";

test.beforeEach(async () => {
  await fakeOllama.reset();
});

/** The first tool-loop call reads a page that takes `ms` to load: time to act while the agent works. */
const slowToolRound = (ms: number) => ({
  when: { hasTools: true },
  toolCalls: [{ name: "scrape_url", arguments: { url: `${FAKE_WEB_URL}/slow/quokka.html?ms=${ms}` } }],
});

test("an interrupt sent while the agent works is pending, then shown where the agent took it, and reaches the model", async ({
  page,
}) => {
  const chat = new ChatPage(page);
  await fakeOllama.script(slowToolRound(6000));
  await chat.startConversation(`[slow] ${unique("Research quokkas")}`);
  await expect(chat.toolCard("scrape_url")).toHaveAttribute("data-state", "running");

  await chat.send("Also mention what they eat");
  const pending = page.locator('[data-testid="message-user"][data-interrupt-pending="true"]');
  await expect(pending).toContainText("Also mention what they eat");
  await expect(pending.getByTestId("interrupt-pending-label")).toBeVisible();
  await chat.screenshot("interrupt-pending");

  // The agent takes it after the tool result: it moves into the turn, marked as sent while working.
  const taken = chat.lastAnswer.getByTestId("taken-interrupt");
  await expect(taken).toHaveText("Also mention what they eat");
  await expect(chat.lastAnswer).toContainText("Sent while working");
  await expect(pending).toHaveCount(0);
  await chat.screenshot("interrupt-taken");

  // The tool loop's next request carries it as a user interrupt.
  await expect
    .poll(async () =>
      (await fakeOllama.chatRequests()).some((request) =>
        request.body.messages.some(
          (m: { role: string; content?: string }) =>
            m.role === "user" &&
            m.content?.includes("[USER INTERRUPT]") &&
            m.content.includes("Also mention what they eat"),
        ),
      ),
    )
    .toBe(true);

  await expect(chat.lastAnswer).toContainText("line 2");
  await chat.stopButton.click();
  await chat.expectAnswerDone("stopped");

  // After a reload the interrupt is still shown inside the turn, not as a question of its own.
  await page.reload();
  await chat.expectAnswerDone("stopped");
  await expect(chat.lastAnswer.getByTestId("taken-interrupt")).toHaveText("Also mention what they eat");
  await expect(chat.userMessages).toHaveCount(1);
});

test("an interrupt the run never took is sent as the next turn when the run ends", async ({ page }) => {
  const chat = new ChatPage(page);
  // No tools: the loop answers at once and the slow answer streams; nothing can take the message now.
  const question = unique("Count for me");
  await fakeOllama.script(slowAnswer("counting", 80));
  await chat.startConversation(question);
  await expect(chat.lastAnswer).toContainText("line 1");

  await chat.send("And then say goodbye");
  await expect(page.locator('[data-testid="message-user"][data-interrupt-pending="true"]')).toContainText(
    "And then say goodbye",
  );

  await expect(chat.userMessages).toHaveText([question, "And then say goodbye"], { timeout: 40_000 });
  await expect(chat.assistantMessages).toHaveCount(2);
  await chat.expectAnswerDone();
  await expect(chat.lastAnswer).toContainText("Echo: And then say goodbye");
  await expect(chat.assistantMessages.first()).toContainText("line 80");
});

test("a follow-up sent while the agent works is answered even when the page is closed before the run ends", async ({
  page,
  context,
}) => {
  const chat = new ChatPage(page);
  const question = unique("Count, then close");
  await fakeOllama.script(slowAnswer("counting", 80));
  const id = await chat.startConversation(question);
  await expect(chat.lastAnswer).toContainText("line 1");
  await chat.send("And then say goodbye");
  await expect(page.locator('[data-testid="message-user"][data-interrupt-pending="true"]')).toContainText(
    "And then say goodbye",
  );
  await page.close();

  // Nothing of the follow-up lived only in that tab: the server answers it as the next turn.
  const again = new ChatPage(await context.newPage());
  await again.open(`/c/${id}`);
  await expect(again.userMessages).toHaveText([question, "And then say goodbye"], { timeout: 40_000 });
  await expect(again.assistantMessages).toHaveCount(2);
  await again.expectAnswerDone();
  await expect(again.lastAnswer).toContainText("Echo: And then say goodbye");
});

test("after Stop, a follow-up the run never took stays as an unsent message, across a reload; Send answers it, Discard drops it", async ({
  page,
}) => {
  const chat = new ChatPage(page);
  await fakeOllama.script(slowAnswer("counting", 400));
  await chat.startConversation(unique("Stop with a follow-up pending"));
  await expect(chat.lastAnswer).toContainText("line 1");
  await chat.send("Keep this for later");
  await expect(page.locator('[data-testid="message-user"][data-interrupt-pending="true"]')).toHaveCount(1);

  await chat.stopButton.click();
  await chat.expectAnswerDone("stopped");
  const unsent = page.getByTestId("message-unsent");
  await expect(unsent).toContainText("Keep this for later");
  await expect(unsent).toContainText("Not sent");
  await expect(page.locator('[data-testid="message-user"][data-interrupt-pending="true"]')).toHaveCount(0);
  await expect(chat.composer).toHaveValue("");
  expect((await fakeOllama.chatRequests()).some((r) => JSON.stringify(r.body).includes("Keep this for later"))).toBe(
    false,
  );
  await chat.screenshot("followup-unsent");

  await page.reload();
  await expect(unsent).toContainText("Keep this for later");
  await unsent.getByRole("button", { name: "Send" }).click();
  await expect(unsent).toHaveCount(0);
  await expect(chat.assistantMessages).toHaveCount(2);
  await chat.expectAnswerDone();
  await expect(chat.lastAnswer).toContainText("Echo: Keep this for later");

  // A second one, discarded: gone for good, also after a reload.
  await fakeOllama.script(slowAnswer("again", 400));
  await chat.send(unique("Once more"));
  await expect(chat.lastAnswer).toContainText("line 1");
  await chat.send("Drop this one");
  await chat.stopButton.click();
  await expect(unsent).toContainText("Drop this one");
  await unsent.getByRole("button", { name: "Discard" }).click();
  await expect(unsent).toHaveCount(0);
  await page.reload();
  await chat.expectAnswerDone("stopped");
  await expect(unsent).toHaveCount(0);
});

test("Stop during a tool call ends the run as stopped and the running card stops too", async ({ page }) => {
  const chat = new ChatPage(page);
  await fakeOllama.script(slowToolRound(10_000));
  await chat.startConversation(unique("Stop me while reading"));
  const card = chat.toolCard("scrape_url");
  await expect(card).toHaveAttribute("data-state", "running");

  await chat.stopButton.click();
  await chat.expectAnswerDone("stopped");
  await expect(card).not.toHaveAttribute("data-state", "running");
  await expect(chat.sendButton).toBeVisible();

  await page.reload();
  await chat.expectAnswerDone("stopped");
  await expect(chat.toolCard("scrape_url")).not.toHaveAttribute("data-state", "running");
});
