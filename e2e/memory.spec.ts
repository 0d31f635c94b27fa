import { expect, test } from "@playwright/test";
import { ChatPage } from "./pages/chat-page";
import { fakeOllama } from "./support/fake-ollama";
import { screenshotVariants } from "./support/screens";
import { unique } from "./support/unique";

// The user's memory (docs/architecture.md, "Projects and memory"): a memory saved by the model's
// remember call shows under the answer with Undo, is edited in Settings → Memory, and a later chat's
// system prompt carries it.

test.beforeEach(async () => {
  await fakeOllama.reset();
});

const systemPrompts = async () =>
  (await fakeOllama.chatRequests()).map(
    (request) =>
      ((request.body.messages ?? []) as { role: string; content: string }[]).find((m) => m.role === "system")
        ?.content ?? "",
  );

test("a memory remember saves shows under the answer, is undone, saved again, edited in Settings and used in a later chat", async ({
  page,
}) => {
  const fact = unique("I work in metric units");
  const chat = new ChatPage(page);
  await chat.open("/");
  await fakeOllama.script(
    { when: { hasTools: true }, toolCalls: [{ name: "remember", arguments: { text: fact } }] },
    { when: { hasTools: true }, content: "Noted." },
    { when: { hasTools: false, stream: true }, content: "Noted: I will use metric units." },
  );
  await chat.send(`Please remember: ${fact}`);
  await chat.expectAnswerDone();
  const chip = page.getByTestId("memory-chip");
  await expect(chip).toHaveAttribute("data-state", "saved");
  await expect(chip).toContainText(fact);
  await screenshotVariants(page, chat, "memory-chip", () => chip.scrollIntoViewIfNeeded());

  // Undo deletes it; Settings lists nothing of it.
  await chip.getByTestId("memory-undo").click();
  await expect(chip).toHaveAttribute("data-state", "undone");
  await page.goto("/settings");
  const section = page.getByTestId("settings-memory");
  await expect(section).not.toContainText(fact);

  // Added again by hand, then edited.
  await section.getByTestId("memory-new").fill(fact);
  await section.getByTestId("memory-add").click();
  const item = section.getByTestId("memory-item").filter({ hasText: fact });
  await expect(item).toBeVisible();
  await item.getByTestId("memory-edit").click();
  const edited = `${fact}, and Celsius`;
  await section.getByTestId("memory-edit-text").fill(edited);
  await section.getByTestId("memory-save").click();
  await expect(section.getByTestId("memory-item").filter({ hasText: edited })).toBeVisible();
  await screenshotVariants(page, chat, "memory-settings", () => section.scrollIntoViewIfNeeded());

  // A later chat's model calls carry it, and the trail says how many memories were given.
  await fakeOllama.reset();
  await fakeOllama.script({ when: { hasTools: true }, content: "About 400 kilometres." });
  await chat.open("/");
  await chat.send(unique("How far is Osaka from Tokyo?"));
  await chat.expectAnswerDone();
  expect((await systemPrompts())[0]).toContain(edited);
  // A run without tool calls shows its notices above the answer, without a trail to open.
  await expect(
    chat.lastAnswer.getByTestId("run-notice").filter({ hasText: "saved memories were given" }),
  ).toBeVisible();
});
