import { type Browser, expect, type Page, test } from "@playwright/test";
import { ChatPage } from "./pages/chat-page";
import { LoginPage } from "./pages/login-page";
import { fakeOllama } from "./support/fake-ollama";
import { APP_ACCOUNTS_SETUP_TOKEN, APP_ACCOUNTS_URL } from "./support/servers";
import { unique } from "./support/unique";

test.beforeEach(async () => {
  await fakeOllama.reset();
});

/** Opens a conversation's "more" menu (its buttons show on hover, or for the open conversation). */
async function openMenu(chat: ChatPage, title: string) {
  await chat.conversation(title).hover();
  await chat.conversation(title).getByTestId("conversation-menu-button").click();
  await expect(chat.page.getByRole("menu")).toBeVisible();
}

/** Opens a conversation's "more" menu in the sidebar and picks an item by its name. */
async function fromMenu(chat: ChatPage, title: string, item: "Pin" | "Unpin" | "Archive" | "Unarchive") {
  await openMenu(chat, title);
  await chat.page.getByRole("menuitem", { name: item, exact: true }).click();
}

const archivedFilter = (page: Page) => page.getByTestId("archived-filter");

test("pin moves a conversation to the top and survives a reload; archive hides it, the Archived filter shows it, unarchive brings it back", async ({
  page,
}) => {
  const chat = new ChatPage(page);
  const older = unique("Pin and archive me");
  await chat.startConversation(older);
  await chat.expectAnswerDone();
  const newer = unique("A newer chat");
  await chat.startConversation(newer);
  await chat.expectAnswerDone();
  await expect(chat.conversations.first()).toContainText(newer);

  await fromMenu(chat, older, "Pin");
  const pinned = page.getByRole("region", { name: "Pinned" });
  await expect(pinned.getByTestId("conversation-item")).toHaveText([older]);
  await expect(chat.conversations.first()).toContainText(older);
  await page.reload();
  await expect(chat.conversations.first()).toContainText(older);
  await expect(pinned.getByTestId("conversation-item")).toHaveText([older]);

  // By keyboard: from the item's link, Tab passes rename and delete to the menu button; the menu
  // opens on its first item, arrows move, Enter picks.
  await chat.conversation(older).getByRole("link").focus();
  for (let i = 0; i < 3; i++) await page.keyboard.press("Tab");
  await expect(chat.conversation(older).getByTestId("conversation-menu-button")).toBeFocused();
  await page.keyboard.press("Enter");
  await expect(page.getByRole("menuitem", { name: "Unpin" })).toBeFocused();
  await page.keyboard.press("ArrowDown");
  await expect(page.getByRole("menuitem", { name: "Archive" })).toBeFocused();
  await page.keyboard.press("Enter");
  await expect(chat.conversation(older)).toHaveCount(0);
  await expect(pinned).toHaveCount(0);
  // The conversation went where the filter shows it: the focus goes there too.
  await expect(archivedFilter(page)).toBeFocused();

  await page.keyboard.press("Enter");
  await expect(archivedFilter(page)).toHaveAttribute("aria-pressed", "true");
  await expect(chat.conversation(older)).toHaveCount(1);
  await expect(chat.conversation(newer)).toHaveCount(0);
  // Search within the archive finds it; the others are not searched there.
  await page.getByTestId("conversation-search").fill(newer);
  await expect(page.getByText(`No conversations match “${newer}”.`)).toBeVisible();
  await page.getByTestId("conversation-search").fill("");
  await expect(chat.conversation(older)).toHaveCount(1);

  await fromMenu(chat, older, "Unarchive");
  await expect(chat.conversation(older)).toHaveCount(0);
  await archivedFilter(page).click();
  await expect(archivedFilter(page)).toHaveAttribute("aria-pressed", "false");
  await expect(chat.conversations.first()).toContainText(older);

  await fromMenu(chat, older, "Unpin");
  await expect(pinned).toHaveCount(0);
  await expect(chat.conversations.first()).toContainText(newer);
});

test("an archived conversation opened by its URL says so; Unarchive there, or a new message, brings it back", async ({
  page,
}) => {
  const chat = new ChatPage(page);
  const title = unique("Archived but opened");
  const id = await chat.startConversation(title);
  await chat.expectAnswerDone();
  await fromMenu(chat, title, "Archive");
  await expect(chat.conversation(title)).toHaveCount(0);

  await chat.open("/");
  await page.goto(`/c/${id}`);
  const notice = page.getByTestId("archived-notice");
  await expect(notice).toContainText("This conversation is archived.");
  await notice.getByRole("button", { name: "Unarchive" }).click();
  await expect(notice).toBeHidden();
  await expect(chat.conversation(title)).toHaveCount(1);

  await fromMenu(chat, title, "Archive");
  await expect(notice).toBeVisible();
  await chat.send("One more question");
  await chat.expectAnswerDone();
  await expect(notice).toBeHidden();
  await expect(chat.conversations.first()).toContainText(title);
});

const sizes = [
  { name: "wide", viewport: { width: 1280, height: 800 } },
  { name: "narrow", viewport: { width: 390, height: 844 } },
] as const;

// Screenshot artifacts for people to look at (test-results/screens): nothing compares them.
for (const size of sizes) {
  for (const scheme of ["light", "dark"] as const) {
    test(`artifact: the sidebar with a pinned conversation and the Archived filter, ${size.name}, ${scheme}`, async ({
      page,
    }) => {
      await page.setViewportSize(size.viewport);
      await page.emulateMedia({ colorScheme: scheme });
      const chat = new ChatPage(page);
      const pinnedTitle = unique("Trip to Kyoto");
      const archivedTitle = unique("Old tax questions");
      for (const title of [archivedTitle, pinnedTitle]) {
        await chat.startConversation(title);
        await chat.expectAnswerDone();
      }
      const narrow = size.name === "narrow";
      if (narrow) await chat.openSidebar();
      await fromMenu(chat, pinnedTitle, "Pin");
      await fromMenu(chat, archivedTitle, "Archive");
      await expect(page.getByRole("region", { name: "Pinned" })).toContainText(pinnedTitle);
      await openMenu(chat, pinnedTitle);
      await chat.screenshot("sidebar-pinned");
      await page.keyboard.press("Escape");
      await expect(page.getByRole("menu")).toBeHidden();

      await archivedFilter(page).click();
      await expect(chat.conversation(archivedTitle)).toHaveCount(1);
      await chat.screenshot("sidebar-archived");

      // Leave the shared sidebar as other tests expect it.
      await fromMenu(chat, archivedTitle, "Unarchive");
      await archivedFilter(page).click();
      await fromMenu(chat, pinnedTitle, "Unpin");
      await expect(page.getByRole("region", { name: "Pinned" })).toHaveCount(0);
    });
  }
}

test.describe("password change", () => {
  test.use({ baseURL: APP_ACCOUNTS_URL });

  async function signIn(page: Page, username: string, password: string) {
    await page.goto("/login");
    const login = new LoginPage(page);
    await expect(login.title).toBeVisible();
    // Run on its own, this creates the e2e admin: the first account needs the setup token.
    if (await login.setupToken.isVisible()) await login.setupToken.fill(APP_ACCOUNTS_SETUP_TOKEN);
    await login.submitAs(username, password);
    await expect(page.getByTestId("current-user")).toContainText(username);
  }

  async function newPage(browser: Browser): Promise<Page> {
    return (await browser.newContext({ baseURL: APP_ACCOUNTS_URL })).newPage();
  }

  test("change the password in Settings, then the new one signs in and the old one fails; other sessions end", async ({
    page,
    browser,
  }) => {
    // Three sign-ins (scrypt) and three browser contexts on a busy machine.
    test.slow();
    // The e2e admin (created here when this runs first) adds the account under test.
    await signIn(page, "admin", "correct horse battery");
    const username = unique("pw").replace(" ", "-");
    const oldPassword = "the old password";
    const newPassword = "新しい パスワード 2026";
    const added = await page.request.post("/api/admin/users", { data: { username, password: oldPassword } });
    expect(added.status()).toBe(201);

    const user = await newPage(browser);
    const elsewhere = await newPage(browser);
    await signIn(user, username, oldPassword);
    await signIn(elsewhere, username, oldPassword);

    await user.goto("/settings");
    const form = user.getByTestId("password-form");
    await expect(form).toContainText("At least 8 and at most 200 characters");
    await user.getByLabel("Current password").fill("not the password");
    await user.getByLabel("New password", { exact: true }).fill(newPassword);
    await user.getByLabel("New password again").fill(`${newPassword}!`);
    await user.getByTestId("password-submit").click();
    await expect(user.getByTestId("password-error")).toHaveText("The new password and its repetition differ.");
    await user.getByLabel("New password again").fill(newPassword);
    await user.getByTestId("password-submit").click();
    await expect(user.getByTestId("password-error")).toHaveText("The current password is wrong.");
    await user.getByLabel("Current password").fill(oldPassword);
    await user.getByTestId("password-submit").click();
    await expect(user.getByTestId("password-changed")).toHaveText(
      "Password changed. Your other sessions were signed out.",
    );

    // This browser stays signed in; the other session is gone.
    await user.reload();
    await expect(user.getByTestId("current-user")).toContainText(username);
    await elsewhere.reload();
    await new LoginPage(elsewhere).expectShown("Sign in to ollama-web");

    const login = new LoginPage(elsewhere);
    await login.submitAs(username, oldPassword);
    await expect(login.error).toContainText("Wrong username or password");
    await login.submitAs(username, newPassword);
    await expect(elsewhere.getByTestId("current-user")).toContainText(username);
  });
});
