import { expect, type Page, test } from "@playwright/test";
import { ChatPage } from "./pages/chat-page";
import { fakeOllama } from "./support/fake-ollama";
import { screenshotVariants } from "./support/screens";
import { unique } from "./support/unique";

// The user's memory (docs/architecture.md, "Projects and memory"): a memory saved by the model's
// remember call shows under the answer with Undo — as soon as its step streams in — is edited in
// Settings → Memory, and a later chat's system prompt carries it; deleting one there asks first; a
// proposal is saved or dismissed while its answer streams, and stays so; a new chat starts private.

test.beforeEach(async () => {
  await fakeOllama.reset();
});

// "Ask before saving" is the user's own switch: each test starts, and leaves, without it.
test.afterEach(async ({ request }) => {
  await request.patch("/api/memories/settings", { data: { askBeforeSaving: false } });
});

/** An answer long enough to act on its chips while it still streams (about 8 s). */
const SLOW_ANSWER = {
  when: { hasTools: false, stream: true },
  chunks: Array.from({ length: 40 }, (_, i) => `Part ${i + 1} of the answer. `),
  chunkDelayMs: 200,
};

/** Waits for the page's CSS transitions (the drawer sliding away as the viewport narrows) to end. */
const transitionsDone = (page: Page) => async () => {
  await page.evaluate(() =>
    Promise.all(document.getAnimations().flatMap((a) => (a instanceof CSSTransition ? [a.finished] : []))),
  );
};

/**
 * Records each state the memory chips go through (their `data-state`s, in order), so a test can
 * say the live answer's chips became the stored answer's without a flicker or a second chip.
 */
async function recordChips(page: Page): Promise<() => Promise<string[]>> {
  await page.evaluate(() => {
    const seen: string[] = [];
    const note = () => {
      const now = [...document.querySelectorAll<HTMLElement>("[data-testid=memory-chip]")]
        .map((chip) => chip.dataset.state)
        .join(",");
      if (now && seen.at(-1) !== now) seen.push(now);
    };
    new MutationObserver(note).observe(document.body, { subtree: true, childList: true, attributes: true });
    (window as unknown as { chipStates: string[] }).chipStates = seen;
  });
  return () => page.evaluate(() => (window as unknown as { chipStates: string[] }).chipStates);
}

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

test("the chip shows while the answer streams: Undo works then, and the stored answer keeps the one chip as it was", async ({
  page,
}) => {
  const fact = unique("I cycle to work");
  const chat = new ChatPage(page);
  await chat.open("/");
  await fakeOllama.script(
    { when: { hasTools: true }, toolCalls: [{ name: "remember", arguments: { text: fact } }] },
    { when: { hasTools: true }, content: "Noted." },
    SLOW_ANSWER,
  );
  const states = await recordChips(page);
  await chat.send(`Please remember: ${fact}`);
  const chip = chat.lastAnswer.getByTestId("memory-chip");
  await expect(chip).toHaveAttribute("data-state", "saved");
  await expect(chat.lastAnswer).toHaveAttribute("data-status", "streaming");
  await screenshotVariants(page, chat, "memory-chip-streaming", () => chip.scrollIntoViewIfNeeded());
  await chip.getByTestId("memory-undo").click();
  await expect(chip).toHaveAttribute("data-state", "undone");
  // Undone while the answer is still being written.
  await expect(chat.lastAnswer).toHaveAttribute("data-status", "streaming");
  const listed = (await (await page.request.get("/api/memories")).json()) as { memories: { text: string }[] };
  expect(listed.memories.map((memory) => memory.text)).not.toContain(fact);

  await chat.expectAnswerDone("complete", { timeout: 20_000 });
  await expect(chat.lastAnswer.getByTestId("memory-chip")).toHaveCount(1);
  await expect(chip).toHaveAttribute("data-state", "undone");
  expect(await states()).toEqual(["saved", "undone"]);
  await page.reload();
  await expect(chat.lastAnswer.getByTestId("memory-chip")).toHaveAttribute("data-state", "undone");
});

test("ask before saving: a proposal saved and one dismissed while the answer streams stay so, the saved one naming the answer", async ({
  page,
}) => {
  await page.request.patch("/api/memories/settings", { data: { askBeforeSaving: true } });
  const keep = unique("I prefer metric units");
  const drop = unique("I had toast today");
  const chat = new ChatPage(page);
  await chat.open("/");
  await fakeOllama.script(
    {
      when: { hasTools: true },
      toolCalls: [
        { name: "remember", arguments: { text: keep } },
        { name: "remember", arguments: { text: drop } },
      ],
    },
    { when: { hasTools: true }, content: "Noted." },
    SLOW_ANSWER,
  );
  const states = await recordChips(page);
  await chat.send(`${keep}. ${drop}.`);
  const chips = chat.lastAnswer.getByTestId("memory-chip");
  const kept = chips.filter({ hasText: keep });
  const dropped = chips.filter({ hasText: drop });
  await expect(kept).toHaveAttribute("data-state", "proposed");
  await expect(dropped).toHaveAttribute("data-state", "proposed");
  await screenshotVariants(page, chat, "memory-proposals-streaming", () => kept.scrollIntoViewIfNeeded());
  await kept.getByTestId("memory-save-proposal").click();
  await expect(kept).toHaveAttribute("data-state", "saved");
  await dropped.getByTestId("memory-dismiss").click();
  await expect(dropped).toHaveAttribute("data-state", "dismissed");
  await expect(chat.lastAnswer).toHaveAttribute("data-status", "streaming");

  await chat.expectAnswerDone("complete", { timeout: 20_000 });
  await expect(chips).toHaveCount(2);
  // Each proposal may show before the other; from both on, only what the buttons did, and no second chip.
  const seen = await states();
  expect(seen.slice(seen.indexOf("proposed,proposed"))).toEqual([
    "proposed,proposed",
    "saved,proposed",
    "saved,dismissed",
  ]);
  expect(seen.every((state) => state.split(",").length <= 2 && !state.includes("undone"))).toBe(true);
  // Saved mid-stream, it names the answer once stored, as one saved after would.
  const id = chat.conversationId();
  const detail = (await (await page.request.get(`/api/conversations/${id}`)).json()) as {
    messages: { id: string; role: string }[];
  };
  const answer = detail.messages.find((message) => message.role === "assistant")?.id;
  await expect
    .poll(async () => {
      const listed = (await (await page.request.get("/api/memories")).json()) as {
        memories: { text: string; messageId: string | null }[];
      };
      return listed.memories.find((memory) => memory.text === keep)?.messageId;
    })
    .toBe(answer);

  // After a reload, the saved one is saved and the dismissed one stays dismissed.
  await page.reload();
  await expect(kept).toHaveAttribute("data-state", "saved");
  await expect(dropped).toHaveAttribute("data-state", "dismissed");
  await screenshotVariants(page, chat, "memory-proposals-stored", () => kept.scrollIntoViewIfNeeded());
});

test("a new chat starts private from the Tools menu, by keyboard: no memory reaches its prompt, and the list says it is private", async ({
  page,
}) => {
  const fact = unique("I live in Sapporo");
  expect((await page.request.post("/api/memories", { data: { text: fact } })).status()).toBe(201);
  const chat = new ChatPage(page);
  await chat.open("/");
  const tools = page.getByTestId("tool-groups-button");
  await tools.focus();
  await page.keyboard.press("Enter");
  const toggle = page.getByTestId("private-chat-toggle").getByRole("checkbox", { name: /Private chat/ });
  await expect(toggle).not.toBeChecked();
  await page.keyboard.press("End");
  await expect(toggle).toBeFocused();
  await page.keyboard.press("Space");
  await expect(toggle).toBeChecked();
  await screenshotVariants(page, chat, "new-chat-private-menu", async () => {
    await page.getByTestId("tool-groups-panel").scrollIntoViewIfNeeded();
    await transitionsDone(page)();
  });
  await page.keyboard.press("Escape");
  await expect(tools).toBeFocused();
  const chip = page.getByTestId("new-chat-private");
  await expect(chip).toContainText("Private chat: no memory is read or saved");
  await screenshotVariants(page, chat, "new-chat-private", transitionsDone(page));

  // The chip's button turns it off again, and the menu follows; on once more, the chat is sent.
  await chip.getByRole("button", { name: "Use memory in this chat" }).click();
  await expect(chip).toHaveCount(0);
  await tools.click();
  await expect(toggle).not.toBeChecked();
  await toggle.check();
  await page.keyboard.press("Escape");
  await expect(chip).toBeVisible();

  await fakeOllama.script({ when: { hasTools: true }, content: "It is cold there in winter." });
  const title = unique("What is the weather like where I live?");
  await chat.send(title);
  await page.waitForURL(/\/c\/[^/]+$/);
  await chat.expectAnswerDone();
  const id = chat.conversationId();
  const detail = (await (await page.request.get(`/api/conversations/${id}`)).json()) as {
    conversation: { private: boolean };
  };
  expect(detail.conversation.private).toBe(true);
  for (const prompt of await systemPrompts()) expect(prompt).not.toContain(fact);
  const requests = await fakeOllama.chatRequests();
  for (const request of requests) {
    const tools = (request.body.tools ?? []) as { function: { name: string } }[];
    expect(tools.map((tool) => tool.function.name)).not.toContain("remember");
  }
  await expect(page.locator(`[data-conversation-id="${id}"]`).getByTestId("private-chat")).toBeVisible();
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

  test("a new chat is made private in Japanese", async ({ page }) => {
    const chat = new ChatPage(page);
    await chat.open("/");
    await page.getByTestId("tool-groups-button").click();
    const toggle = page.getByRole("checkbox", { name: /プライベートチャット/ });
    await expect(page.getByTestId("private-chat-toggle")).toContainText("このチャットではメモリを読み書きしません");
    await toggle.check();
    await page.keyboard.press("Escape");
    const chip = page.getByTestId("new-chat-private");
    await expect(chip).toContainText("プライベートチャット（メモリなし）");
    await expect(chip.getByRole("button", { name: "このチャットでメモリを使う" })).toBeVisible();
    await screenshotVariants(page, chat, "new-chat-private-ja", transitionsDone(page));
  });

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
