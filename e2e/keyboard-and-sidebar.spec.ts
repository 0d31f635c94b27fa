import { expect, type Page, test } from "@playwright/test";
import { makeTextPdf } from "../tests/support/pdf-fixtures";
import { ChatPage } from "./pages/chat-page";
import { fakeOllama, slowAnswer } from "./support/fake-ollama";
import { APP_ACCOUNTS_URL } from "./support/servers";
import { unique } from "./support/unique";

test.beforeEach(async () => {
  await fakeOllama.reset();
});

const NOTES = { name: "notes.pdf", mimeType: "application/pdf", buffer: Buffer.from(makeTextPdf([["Some notes"]])) };

/** Attaches a file on the new-chat screen; resolves with the id of the conversation the upload made. */
async function attachOnNewChat(chat: ChatPage): Promise<string> {
  const uploaded = chat.page.waitForResponse(
    (response) => /\/api\/conversations\/[^/]+\/files$/.test(response.url()) && response.request().method() === "POST",
  );
  await chat.attach(NOTES);
  const response = await uploaded;
  expect(response.status()).toBe(201);
  const id = /\/api\/conversations\/([^/]+)\/files$/.exec(response.url())?.[1];
  if (!id) throw new Error(`no conversation id in ${response.url()}`);
  return id;
}

const conversationStatus = async (page: Page, id: string) =>
  (await page.request.get(`/api/conversations/${id}`)).status();

const hideButton = (page: Page) => page.getByRole("button", { name: "Hide sidebar" });
const showButton = (page: Page) => page.getByRole("button", { name: "Show sidebar" });

test.describe("keyboard shortcuts", () => {
  test("Ctrl/⌘+Shift+O opens a new chat with the composer focused", async ({ page }) => {
    const chat = new ChatPage(page);
    await chat.startConversation(unique("Shortcut new chat"));
    await chat.expectAnswerDone();
    await page.getByTestId("conversation-search").focus();
    await page.keyboard.press("ControlOrMeta+Shift+O");
    await expect(page).toHaveURL("/");
    await expect(chat.composer).toBeFocused();
  });

  test("Ctrl/⌘+K focuses the search, also while typing and with the sidebar hidden", async ({ page }) => {
    const chat = new ChatPage(page);
    await chat.open("/");
    const search = page.getByTestId("conversation-search");
    await chat.composer.fill("half a thought");
    await page.keyboard.press("ControlOrMeta+K");
    await expect(search).toBeFocused();

    await hideButton(page).click();
    await expect(chat.sidebar).toBeHidden();
    await chat.composer.focus();
    await page.keyboard.press("ControlOrMeta+K");
    await expect(chat.sidebar).toBeVisible();
    await expect(search).toBeFocused();
  });

  test("Shift+Esc focuses the composer from anywhere; / does only when not typing", async ({ page }) => {
    const chat = new ChatPage(page);
    await chat.open("/");
    const search = page.getByTestId("conversation-search");
    await search.focus();
    await page.keyboard.press("Shift+Escape");
    await expect(chat.composer).toBeFocused();

    await search.focus();
    await page.keyboard.type("a/b");
    await expect(search).toBeFocused();
    await expect(search).toHaveValue("a/b");
    await chat.newChatButton.focus();
    await page.keyboard.press("/");
    await expect(chat.composer).toBeFocused();
    await expect(chat.composer).toHaveValue("");
  });

  test("Esc stops the running answer, unless a field that uses Esc or an input method has it", async ({ page }) => {
    const chat = new ChatPage(page);
    await fakeOllama.script(slowAnswer("escape", 200, 400));
    await chat.startConversation(unique("Stop with Esc"));
    await expect(chat.lastAnswer).toContainText("line 2");

    // An input method composing (Japanese, Chinese…) uses Esc to cancel the composition.
    await chat.composer.evaluate((element) => {
      element.dispatchEvent(
        new KeyboardEvent("keydown", { key: "Escape", code: "Escape", isComposing: true, bubbles: true }),
      );
    });
    // The search box uses Esc to clear its text.
    const search = page.getByTestId("conversation-search");
    await search.fill("something");
    await search.press("Escape");
    await expect(search).toHaveValue("");
    // Still streaming well after those keys.
    await expect(chat.lastAnswer).toContainText("line 8");
    await expect(chat.lastAnswer).toHaveAttribute("data-status", "streaming");

    await chat.composer.focus();
    await page.keyboard.press("Escape");
    await chat.expectAnswerDone("stopped");
  });

  test("Ctrl/⌘+/ opens the list of shortcuts; Esc closes it", async ({ page }) => {
    const chat = new ChatPage(page);
    await chat.open("/");
    await chat.composer.focus();
    await page.keyboard.press("ControlOrMeta+/");
    const dialog = page.getByRole("dialog", { name: "Keyboard shortcuts" });
    await expect(dialog).toBeVisible();
    for (const action of ["New chat", "Search conversations", "Focus the message box", "Stop the answer"]) {
      await expect(dialog.getByText(action, { exact: true })).toBeVisible();
    }
    await expect(dialog.locator("kbd")).toContainText(["Ctrl", "Shift", "O"]);
    await page.keyboard.press("Escape");
    await expect(dialog).toBeHidden();
  });

  test("Ctrl/⌘+Shift+S hides and shows the sidebar", async ({ page }) => {
    const chat = new ChatPage(page);
    await chat.open("/");
    await chat.composer.focus();
    await page.keyboard.press("ControlOrMeta+Shift+S");
    await expect(chat.sidebar).toBeHidden();
    await expect(showButton(page)).toHaveAttribute("aria-expanded", "false");
    await page.keyboard.press("ControlOrMeta+Shift+S");
    await expect(chat.sidebar).toBeVisible();
    await expect(hideButton(page)).toHaveAttribute("aria-expanded", "true");
  });
});

test.describe("sidebar and landmarks", () => {
  test("the hidden sidebar is remembered, and a reload never draws it first", async ({ page }) => {
    const chat = new ChatPage(page);
    await chat.open("/");
    await hideButton(page).click();
    await expect(chat.sidebar).toBeHidden();
    await expect(showButton(page)).toBeFocused();

    // Watches every frame of the reload for a drawn sidebar.
    await page.addInitScript(() => {
      const seen = { sidebar: false };
      (window as unknown as { __seen: typeof seen }).__seen = seen;
      const look = () => {
        const sidebar = document.getElementById("sidebar");
        if (sidebar && sidebar.getBoundingClientRect().width > 0) seen.sidebar = true;
        requestAnimationFrame(look);
      };
      requestAnimationFrame(look);
    });
    await page.reload();
    await expect(chat.composer).toBeVisible();
    await expect(showButton(page)).toBeVisible();
    expect(await page.evaluate(() => (window as unknown as { __seen: { sidebar: boolean } }).__seen.sidebar)).toBe(
      false,
    );

    await showButton(page).click();
    await expect(chat.sidebar).toBeVisible();
    await expect(hideButton(page)).toBeFocused();
  });

  test("the skip link is the first Tab stop and moves focus to the composer", async ({ page }) => {
    const chat = new ChatPage(page);
    // A page without an autofocused composer: the first Tab from the top of the page.
    await page.goto("/settings");
    await expect(page.getByTestId("ollama-check")).toBeVisible();
    await page.keyboard.press("Tab");
    await expect(page.getByRole("link", { name: "Skip to content" })).toBeFocused();

    await chat.open("/");
    const skip = page.getByRole("link", { name: "Skip to chat" });
    const firstFocusable = await page.evaluate(
      () =>
        document.querySelector<HTMLElement>("a[href], button, input, textarea, select, [tabindex]:not([tabindex='-1'])")
          ?.dataset.testid,
    );
    expect(firstFocusable).toBe("skip-link");
    await skip.focus();
    await expect(skip).toBeInViewport();
    await page.keyboard.press("Enter");
    await expect(chat.composer).toBeFocused();
  });

  test("every page has exactly one main landmark", async ({ page }) => {
    const chat = new ChatPage(page);
    await chat.open("/");
    await expect(page.getByRole("main")).toHaveCount(1);
    await chat.startConversation(unique("Landmarks"));
    await expect(page.getByRole("main")).toHaveCount(1);
    await page.goto("/settings");
    await expect(page.getByTestId("ollama-check")).toBeVisible();
    await expect(page.getByRole("main")).toHaveCount(1);
    await page.goto(`${APP_ACCOUNTS_URL}/login`);
    await expect(page.getByTestId("login-title")).toBeVisible();
    await expect(page.getByRole("main")).toHaveCount(1);
  });

  for (const scheme of ["light", "dark"] as const) {
    test(`the composer shows a focus ring with 3:1 contrast in ${scheme} mode`, async ({ page }) => {
      await page.emulateMedia({ colorScheme: scheme });
      const chat = new ChatPage(page);
      await chat.open("/");
      const box = page.locator("form", { has: chat.composer }).locator("> div").first();
      await chat.composer.blur();
      await expect(box).toHaveCSS("outline-style", "none");
      await chat.composer.focus();
      await expect(box).toHaveCSS("outline-style", "solid");
      const contrast = await box.evaluate((element) => {
        const channels = (color: string) => (color.match(/[\d.]+/g) ?? []).slice(0, 3).map(Number);
        const luminance = (color: string) => {
          const [r = 0, g = 0, b = 0] = channels(color).map((value) => {
            const c = value / 255;
            return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
          });
          return 0.2126 * r + 0.7152 * g + 0.0722 * b;
        };
        const ring = luminance(getComputedStyle(element).outlineColor);
        const page = luminance(getComputedStyle(document.body).backgroundColor);
        return (Math.max(ring, page) + 0.05) / (Math.min(ring, page) + 0.05);
      });
      expect(contrast).toBeGreaterThanOrEqual(3);
    });
  }

  test.describe("on a phone", () => {
    test.use({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true });

    test("the sidebar stays a drawer, and Ctrl/⌘+Shift+S opens and closes it", async ({ page }) => {
      const chat = new ChatPage(page);
      await chat.open("/");
      await expect(chat.sidebar).toBeHidden();
      await expect(hideButton(page)).toBeHidden();
      await page.keyboard.press("ControlOrMeta+Shift+S");
      await expect(chat.sidebar).toBeVisible();
      await page.keyboard.press("ControlOrMeta+Shift+S");
      await expect(chat.sidebar).toBeHidden();
    });

    test("Ctrl/⌘+K opens the drawer with the search focused, also while typing", async ({ page }) => {
      const chat = new ChatPage(page);
      await chat.open("/");
      await chat.composer.fill("half a thought");
      await expect(chat.sidebar).toBeHidden();
      await page.keyboard.press("ControlOrMeta+K");
      await expect(chat.sidebar).toBeVisible();
      await expect(page.getByTestId("conversation-search")).toBeFocused();
      await page.keyboard.press("Escape");
      await expect(chat.sidebar).toBeHidden();
      await expect(chat.composer).toHaveValue("half a thought");
    });
  });
});

test.describe("sidebar search", () => {
  test("a result shows the matching text highlighted, as text, and opens the conversation at that message", async ({
    page,
  }) => {
    const chat = new ChatPage(page);
    const word = unique("zebrafinch").replace(" ", "");
    const question = `<img src=x onerror="window.__xss=1"> ${word} please`;
    await fakeOllama.script(slowAnswer("a long answer", 120, 0));
    const id = await chat.startConversation(question);
    await chat.expectAnswerDone();
    await chat.send(unique("A later question"));
    await chat.expectAnswerDone();

    await page.getByTestId("conversation-search").fill(word);
    await expect(chat.conversations).toHaveCount(1);
    const result = chat.conversations.first();
    await expect(result.getByTestId("search-snippet")).toContainText('<img src=x onerror="window.__xss=1">');
    await expect(result.getByTestId("search-snippet").getByTestId("search-highlight")).toHaveText(word);
    // The title (the first question) matched too.
    await expect(result.getByTestId("conversation-title").getByTestId("search-highlight")).toHaveText(word);
    expect(await page.evaluate(() => (window as unknown as { __xss?: number }).__xss)).toBeUndefined();

    await page.goto("/");
    await page.getByTestId("conversation-search").fill(word);
    await expect(chat.conversations.first().getByTestId("search-snippet")).toBeVisible();
    await chat.conversations.first().getByRole("link").click();
    await expect(page).toHaveURL(new RegExp(`/c/${id}\\?m=`));
    const found = page.locator("[data-found]");
    await expect(found).toHaveCount(1);
    await expect(found.getByTestId("message-user")).toContainText(word);
    await expect(found).toBeInViewport();
    await expect(found).toBeFocused();
    await expect(chat.userMessages.last()).not.toBeInViewport();

    // The same hit opened again, after scrolling away, brings the message back.
    await chat.userMessages.last().scrollIntoViewIfNeeded();
    await expect(found).not.toBeInViewport();
    await chat.conversations.first().getByRole("link").click();
    await expect(found).toBeInViewport();
    await expect(found).toBeFocused();
  });

  test("a hit in an answer's earlier version opens the conversation showing that version", async ({ page }) => {
    const chat = new ChatPage(page);
    const word = unique("marshwren").replace(" ", "");
    await fakeOllama.script({ when: { stream: true }, content: `The ${word} nests low.` });
    await chat.startConversation(unique("Birds"));
    await chat.expectAnswerDone();
    await fakeOllama.script({ when: { stream: true }, content: "Another answer." });
    await chat.lastAnswer.getByTestId("regenerate-button").click();
    await expect(chat.lastAnswer.getByTestId("answer-text")).toHaveText("Another answer.");
    await chat.expectAnswerDone();

    await page.goto("/");
    await page.getByTestId("conversation-search").fill(word);
    await expect(chat.conversations.first().getByTestId("search-snippet")).toContainText(word);
    await chat.conversations.first().getByRole("link").click();
    await expect(chat.lastAnswer.getByTestId("answer-text")).toHaveText(`The ${word} nests low.`);
    await expect(chat.lastAnswer.getByTestId("version-label")).toHaveText("1/2");
    await expect(page.locator("[data-found]")).toContainText(word);
  });

  test("renaming the second conversation keeps it second", async ({ page }) => {
    const chat = new ChatPage(page);
    const tag = unique("Order").replace(" ", "-");
    for (const n of [1, 2, 3]) {
      await chat.startConversation(`${tag} ${n}`);
      await chat.expectAnswerDone();
    }
    const titles = () => chat.conversations.getByTestId("conversation-title").allTextContents();
    await page.getByTestId("conversation-search").fill(tag);
    await expect(chat.conversations).toHaveCount(3);
    expect(await titles()).toEqual([`${tag} 3`, `${tag} 2`, `${tag} 1`]);

    await chat.conversation(`${tag} 2`).hover();
    await chat.conversation(`${tag} 2`).getByTestId("rename-conversation").click();
    await page.getByTestId("rename-input").fill(`${tag} 2 renamed`);
    await page.getByTestId("rename-input").press("Enter");
    await expect(chat.conversation(`${tag} 2 renamed`)).toHaveCount(1);
    await page.reload();
    await page.getByTestId("conversation-search").fill(tag);
    await expect(chat.conversations).toHaveCount(3);
    expect(await titles()).toEqual([`${tag} 3`, `${tag} 2 renamed`, `${tag} 1`]);
  });
});

test.describe("a new chat given a file and left", () => {
  test("is not listed, and leaving it for another page deletes it", async ({ page }) => {
    const chat = new ChatPage(page);
    const other = unique("Somewhere else");
    await chat.startConversation(other);
    await chat.expectAnswerDone();
    await chat.open("/");
    await expect(chat.conversation(other)).toHaveCount(1);
    const count = await chat.conversations.count();

    const id = await attachOnNewChat(chat);
    await expect(chat.attachmentChips).toHaveCount(1);
    await expect(chat.conversations).toHaveCount(count);
    await chat.conversation(other).getByRole("link").click();
    await expect(chat.userMessages).toHaveText([other]);
    await expect.poll(() => conversationStatus(page, id)).toBe(404);
  });

  test("closing the tab deletes it", async ({ page, context }) => {
    const tab = await context.newPage();
    const chat = new ChatPage(tab);
    await chat.open("/");
    const id = await attachOnNewChat(chat);
    expect(await conversationStatus(page, id)).toBe(200);
    await tab.close({ runBeforeUnload: true });
    await expect.poll(() => conversationStatus(page, id)).toBe(404);
  });

  test("sending its first message lists it and keeps it", async ({ page }) => {
    const chat = new ChatPage(page);
    await chat.open("/");
    const id = await attachOnNewChat(chat);
    const question = unique("With a file");
    await chat.send(question);
    await expect(page).toHaveURL(`/c/${id}`);
    await expect(chat.conversation(question)).toHaveCount(1);
    await chat.expectAnswerDone();
    await chat.newChatButton.click();
    await expect(page).toHaveURL("/");
    await expect(chat.conversation(question)).toHaveCount(1);
    expect(await conversationStatus(page, id)).toBe(200);
  });
});
