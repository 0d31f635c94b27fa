import { expect, test } from "@playwright/test";
import { ChatPage } from "./pages/chat-page";
import { fakeOllama } from "./support/fake-ollama";
import { unique } from "./support/unique";

test.beforeEach(async () => {
  await fakeOllama.reset();
});

test("a conversation can be renamed inline (Enter saves, Escape cancels) and the name is kept", async ({ page }) => {
  const chat = new ChatPage(page);
  const question = unique("Rename me");
  await chat.startConversation(question);
  await chat.expectAnswerDone();
  const item = chat.conversation(question);

  await item.getByTestId("rename-conversation").click();
  await page.getByTestId("rename-input").fill("Never saved");
  await page.getByTestId("rename-input").press("Escape");
  await expect(chat.conversation(question)).toHaveCount(1);

  const renamed = unique("Renamed");
  await chat.conversation(question).getByTestId("rename-conversation").click();
  await page.getByTestId("rename-input").fill(renamed);
  await page.getByTestId("rename-input").press("Enter");
  await expect(chat.conversation(renamed)).toHaveCount(1);
  await expect(chat.conversation(question)).toHaveCount(0);
  await expect(chat.title).toHaveText(renamed);

  await page.reload();
  await expect(chat.conversation(renamed)).toHaveCount(1);
  await expect(chat.title).toHaveText(renamed);
});

test("deleting asks first; confirming removes the conversation and leaves its page", async ({ page }) => {
  const chat = new ChatPage(page);
  const keep = unique("Keep me");
  await chat.startConversation(keep);
  await chat.expectAnswerDone();
  const doomed = unique("Delete me");
  const id = await chat.startConversation(doomed);
  await chat.expectAnswerDone();

  await chat.conversation(doomed).getByTestId("delete-conversation").click();
  const dialog = page.getByRole("dialog", { name: "Delete conversation?" });
  await expect(dialog).toBeVisible();
  await expect(dialog).toContainText(doomed);
  await dialog.getByRole("button", { name: "Cancel" }).click();
  await expect(dialog).toBeHidden();
  await expect(chat.conversation(doomed)).toHaveCount(1);

  await chat.conversation(doomed).getByTestId("delete-conversation").click();
  await dialog.getByTestId("confirm-delete").click();
  await expect(dialog).toBeHidden();
  await expect(chat.conversation(doomed)).toHaveCount(0);
  await expect(chat.conversation(keep)).toHaveCount(1);
  await expect(page).toHaveURL("/");
  expect((await page.request.get(`/api/conversations/${id}`)).status()).toBe(404);

  await page.goto(`/c/${id}`);
  await expect(page.getByText("This conversation does not exist")).toBeVisible();
});

test("search narrows the sidebar to matching conversations", async ({ page }) => {
  const chat = new ChatPage(page);
  const needle = unique("Needle");
  await chat.startConversation(needle);
  await chat.expectAnswerDone();

  await page.getByTestId("conversation-search").fill(needle.split(" ")[1] ?? needle);
  await expect(chat.conversations).toHaveCount(1);
  await expect(chat.conversation(needle)).toHaveCount(1);
  await page.getByTestId("conversation-search").fill("no conversation is called this");
  await expect(chat.conversations).toHaveCount(0);
  await expect(page.getByText("No conversations match")).toBeVisible();
});

test("a search shows its first page of matches and the older ones on request, each once", async ({ page }) => {
  const tag = unique("Paged").replace(" ", "-");
  const titles = Array.from({ length: 35 }, (_, i) => `${tag} ${String(i).padStart(2, "0")}`);
  for (const title of titles) {
    expect((await page.request.post("/api/conversations", { data: { title } })).status()).toBe(201);
  }
  const chat = new ChatPage(page);
  await chat.open("/");
  const loadOlder = page.getByRole("button", { name: "Load older conversations" });
  const shownTitles = async () => (await chat.conversations.getByTestId("conversation-title").allTextContents()).sort();

  const searched = page.waitForResponse(
    (response) => response.url().includes(`/api/conversations?q=${encodeURIComponent(tag)}`) && response.ok(),
  );
  await page.getByTestId("conversation-search").fill(tag);
  // The unfiltered list shows these same 30 at first (they are the newest): wait for the search's own
  // page, whose titles mark the match, before asking for the older ones.
  await searched;
  await expect(chat.conversations.locator("mark")).toHaveCount(30);
  await loadOlder.click();
  await expect(chat.conversations).toHaveCount(35);
  expect(await shownTitles()).toEqual(titles);
  await expect(loadOlder).toHaveCount(0);

  // A conversation deleted from the older page leaves the list at once.
  const older = chat.conversations.last();
  const gone = await older.getByTestId("conversation-title").textContent();
  await older.hover();
  await older.getByTestId("delete-conversation").click();
  await page.getByTestId("confirm-delete").click();
  await expect(chat.conversations).toHaveCount(34);
  expect(await shownTitles()).toEqual(titles.filter((title) => title !== gone));
});

test.describe("on a phone", () => {
  test.use({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true });

  test("the sidebar hides behind the menu button and closes after choosing a conversation", async ({ page }) => {
    const chat = new ChatPage(page);
    const question = unique("Phone chat");
    const id = await chat.startConversation(question);
    await chat.expectAnswerDone();
    await chat.open("/");

    const sidebar = chat.sidebar;
    await expect(sidebar).toBeHidden();
    await chat.openSidebar();
    await chat.conversation(question).getByRole("link").click();
    await expect(page).toHaveURL(`/c/${id}`);
    await expect(sidebar).toBeHidden();
    await expect(chat.userMessages).toHaveText([question]);

    await chat.openSidebar();
    await expect(chat.newChatButton).toBeFocused();
    await page.keyboard.press("Escape");
    await expect(sidebar).toBeHidden();
    await expect(page.getByRole("button", { name: "Open sidebar" })).toBeFocused();
  });
});
