import { type Browser, expect, type Page, test } from "@playwright/test";
import { ChatPage } from "./pages/chat-page";
import { LoginPage } from "./pages/login-page";
import { fakeOllama } from "./support/fake-ollama";
import { APP_ACCOUNTS_SETUP_TOKEN, APP_ACCOUNTS_URL } from "./support/servers";
import { unique } from "./support/unique";

// These run against the instance with AUTH_MODE=required and build on each other: the first test
// creates the admin that the others sign in as.
test.use({ baseURL: APP_ACCOUNTS_URL });
test.describe.configure({ mode: "serial" });

const ADMIN = { username: "admin", password: "correct horse battery" };
const BOB = { username: "bob", password: "bob's password 1" };
const INJECTION = "<img src=x onerror=alert(1)>";

async function signIn(page: Page, who: { username: string; password: string }, path = "/") {
  await page.goto(path);
  const login = new LoginPage(page);
  await login.expectShown("Sign in to ollama-web");
  await login.submitAs(who.username, who.password);
  await expect(page.getByTestId("current-user")).toContainText(who.username);
}

async function newPage(browser: Browser): Promise<Page> {
  const context = await browser.newContext({ baseURL: APP_ACCOUNTS_URL });
  return context.newPage();
}

test.beforeEach(async () => {
  await fakeOllama.reset();
});

test("the first visit creates the admin account; the admin chats, signs out and signs in again", async ({ page }) => {
  const login = new LoginPage(page);
  const chat = new ChatPage(page);
  await page.goto("/");
  await login.expectShown("Create the admin account");
  await expect(page).toHaveURL(/next=%2F/);
  // The first account needs the setup token from the server's log: without it, refused.
  await expect(login.setupToken).toBeVisible();
  await login.setupToken.fill("not-the-token-at-all-0000");
  await login.submitAs(ADMIN.username, ADMIN.password);
  await expect(login.error).toContainText("setup token is missing or wrong");
  await login.setupToken.fill(APP_ACCOUNTS_SETUP_TOKEN);
  await login.submitAs(ADMIN.username, ADMIN.password);

  await expect(page).toHaveURL(`${APP_ACCOUNTS_URL}/`);
  await expect(page.getByTestId("current-user")).toContainText("admin");
  await expect(page.getByTestId("admin-link")).toBeVisible();

  const question = unique("Hello from the admin");
  await chat.send(question);
  await page.waitForURL(/\/c\/[^/]+$/);
  await chat.expectAnswerDone();
  await expect(chat.lastAnswer.getByTestId("answer-text")).toContainText(`Echo: ${question}`);
  const conversationUrl = page.url();

  await page.getByTestId("sign-out").click();
  await login.expectShown("Sign in to ollama-web");
  // Signed out, the conversation is out of reach and leads back to the sign-in page.
  await page.goto(conversationUrl);
  await login.expectShown("Sign in to ollama-web");

  await login.submitAs(ADMIN.username, "wrong password");
  await expect(login.error).toContainText("Wrong username or password");
  await login.submitAs(ADMIN.username, ADMIN.password);
  // Back where they were.
  await expect(page).toHaveURL(conversationUrl);
  await expect(chat.userMessages.first()).toContainText(question);
});

test("an account the admin adds cannot see the admin's conversation", async ({ page, browser }) => {
  const chat = new ChatPage(page);
  await signIn(page, ADMIN);
  const question = unique("Admin's private question");
  await chat.send(question);
  await page.waitForURL(/\/c\/[^/]+$/);
  await chat.expectAnswerDone();
  const conversationPath = new URL(page.url()).pathname;

  await page.getByTestId("admin-link").click();
  await page.getByTestId("add-user-username").fill(BOB.username);
  await page.getByTestId("add-user-password").fill(BOB.password);
  await page.getByTestId("add-user-submit").click();
  const bobRow = page.locator('[data-testid="user-row"][data-username="bob"]');
  await expect(bobRow).toBeVisible();
  // An invalid account is refused with the server's reason, inline.
  await page.getByTestId("add-user-username").fill("x");
  await page.getByTestId("add-user-password").fill("short");
  await page.getByTestId("add-user-submit").click();
  await expect(page.getByTestId("add-user-error")).toBeVisible();

  const bobPage = await newPage(browser);
  await signIn(bobPage, BOB, conversationPath);
  await expect(bobPage).toHaveURL(new RegExp(`${conversationPath}$`));
  await expect(bobPage.getByTestId("thread-not-found")).toBeVisible();
  await expect(new ChatPage(bobPage).conversation(question)).toHaveCount(0);
  await expect(bobPage.getByTestId("admin-link")).toHaveCount(0);
  await bobPage.goto("/admin");
  await expect(bobPage.getByTestId("admin-forbidden")).toBeVisible();

  // Disabled, bob cannot sign in any more; enabled again, he can.
  await bobRow.getByTestId("user-toggle-disabled").click();
  await expect(bobRow.getByTestId("user-state")).toHaveText("Disabled");
  await bobPage.getByTestId("sign-out").click();
  const bobLogin = new LoginPage(bobPage);
  await bobLogin.submitAs(BOB.username, BOB.password);
  await expect(bobLogin.error).toBeVisible();
  await bobRow.getByTestId("user-toggle-disabled").click();
  await expect(bobRow.getByTestId("user-state")).toHaveText("Active");
  await bobLogin.submitAs(BOB.username, BOB.password);
  await expect(bobPage.getByTestId("current-user")).toContainText("bob");

  // Removing asks first.
  await bobRow.getByTestId("user-remove").click();
  await bobRow.getByTestId("user-remove-confirm").click();
  await expect(bobRow).toHaveCount(0);
  await bobPage.context().close();
});

test("closing sign-up hides the sign-up link", async ({ page, browser }) => {
  await signIn(page, ADMIN, "/admin");
  const toggle = page.getByTestId("signup-switch");
  await expect(toggle).toBeEnabled();
  if ((await toggle.getAttribute("aria-checked")) !== "true") await toggle.click();
  await expect(toggle).toHaveAttribute("aria-checked", "true");

  const visitor = await newPage(browser);
  await visitor.goto("/login");
  await expect(new LoginPage(visitor).signupLink).toBeVisible();

  await toggle.click();
  await expect(toggle).toHaveAttribute("aria-checked", "false");
  await visitor.reload();
  await expect(new LoginPage(visitor).title).toHaveText("Sign in to ollama-web");
  await expect(new LoginPage(visitor).signupLink).toHaveCount(0);
  await visitor.context().close();
});

test("script in a conversation title and a file name renders as inert text", async ({ page }) => {
  const dialogs: string[] = [];
  page.on("dialog", (dialog) => {
    dialogs.push(dialog.message());
    void dialog.dismiss();
  });
  const chat = new ChatPage(page);
  await signIn(page, ADMIN);

  // The e2e fake Ollama titles a conversation with its first question.
  await chat.send(INJECTION);
  await page.waitForURL(/\/c\/[^/]+$/);
  await chat.expectAnswerDone();
  await expect(chat.userMessages.first()).toHaveText(INJECTION);
  // The title is the question, tidied by the server (it may drop trailing punctuation).
  const titleText = "<img src=x onerror=alert(1)";
  await expect(chat.title).toContainText(titleText);
  await expect(chat.conversation(titleText)).toBeVisible();

  // A file whose name is markup: the chip shows the name as text (the server also makes it safe).
  const chooser = page.waitForEvent("filechooser");
  await chat.attachButton.click();
  await (await chooser).setFiles({
    name: `${INJECTION}.png`,
    mimeType: "image/png",
    buffer: Buffer.from(
      "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==",
      "base64",
    ),
  });
  await expect(chat.attachmentChips.first()).toContainText("onerror=alert(1)");
  await chat.filesButton.click();
  await expect(page.getByTestId("conversation-file").first()).toContainText("onerror=alert(1)");
  await page.reload();
  await expect(chat.title).toContainText(titleText);
  await expect(page.locator("img[src='x']")).toHaveCount(0);
  expect(dialogs).toEqual([]);
});
