import { expect, test } from "@playwright/test";
import { ChatPage } from "./pages/chat-page";
import { fakeOllama } from "./support/fake-ollama";
import { screenshotVariants } from "./support/screens";
import { unique } from "./support/unique";

// The user's memory (docs/architecture.md, "Projects and memory"): a memory saved by the model's
// remember call shows under the answer with Undo, is edited in Settings → Memory, and a later chat's
// system prompt carries it; deleting one there asks first.

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

test("deleting a memory in Settings asks first: Cancel keeps it, Delete removes it", async ({ page }) => {
  const chat = new ChatPage(page);
  const fact = unique("My team uses PostgreSQL 16");
  const created = await page.request.post("/api/memories", { data: { text: fact } });
  expect(created.status()).toBe(201);
  await page.goto("/settings");
  const section = page.getByTestId("settings-memory");
  const item = section.getByTestId("memory-item").filter({ hasText: fact });
  await expect(item).toBeVisible();

  await item.getByTestId("memory-delete").click();
  const dialog = page.getByTestId("delete-memory-dialog");
  await expect(dialog.getByRole("heading", { name: "Delete this memory?" })).toBeVisible();
  await expect(dialog).toContainText(fact);
  await screenshotVariants(page, chat, "memory-delete-confirm");
  // The safe choice has the focus; Cancel leaves the memory where it was.
  await expect(dialog.getByRole("button", { name: "Cancel" })).toBeFocused();
  await dialog.getByRole("button", { name: "Cancel" }).click();
  await expect(dialog).not.toBeVisible();
  await expect(item).toBeVisible();
  const listed = (await (await page.request.get("/api/memories")).json()) as { memories: { text: string }[] };
  expect(listed.memories.map((memory) => memory.text)).toContain(fact);

  await item.getByTestId("memory-delete").click();
  await dialog.getByTestId("confirm-memory-delete").click();
  await expect(dialog).not.toBeVisible();
  await expect(item).toHaveCount(0);
  const after = (await (await page.request.get("/api/memories")).json()) as { memories: { text: string }[] };
  expect(after.memories.map((memory) => memory.text)).not.toContain(fact);
});

test.describe("in Japanese", () => {
  test.use({ locale: "ja-JP" });

  test("deleting a memory asks first in Japanese", async ({ page }) => {
    const fact = unique("単位はメートル法");
    await page.request.post("/api/memories", { data: { text: fact } });
    await page.goto("/settings");
    const item = page.getByTestId("memory-item").filter({ hasText: fact });
    await item.getByTestId("memory-delete").click();
    const dialog = page.getByTestId("delete-memory-dialog");
    await expect(dialog.getByRole("heading", { name: "このメモリーを削除しますか？" })).toBeVisible();
    await expect(dialog).toContainText(`アシスタントは次のことを忘れます: 「${fact}」`);
    await dialog.getByTestId("confirm-memory-delete").click();
    await expect(item).toHaveCount(0);
  });
});
