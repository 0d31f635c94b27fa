import { expect, type Locator, type Page } from "@playwright/test";

/** The sign-in page (`/login`): sign in, sign up, or create the first (admin) account. */
export class LoginPage {
  readonly title: Locator;
  readonly username: Locator;
  readonly password: Locator;
  readonly submit: Locator;
  readonly error: Locator;
  readonly signupLink: Locator;
  readonly setupToken: Locator;

  constructor(readonly page: Page) {
    this.title = page.getByTestId("login-title");
    this.username = page.getByTestId("login-username");
    this.password = page.getByTestId("login-password");
    this.submit = page.getByTestId("login-submit");
    this.error = page.getByTestId("login-error");
    this.signupLink = page.getByTestId("signup-link");
    this.setupToken = page.getByTestId("login-setup-token");
  }

  async expectShown(title: string | RegExp): Promise<void> {
    await expect(this.page).toHaveURL(/\/login(\?|$)/);
    await expect(this.title).toHaveText(title);
  }

  /** Fills the form and submits it (sign in, sign up or create the admin: whatever the page offers). */
  async submitAs(username: string, password: string): Promise<void> {
    await this.username.fill(username);
    await this.password.fill(password);
    await this.submit.click();
  }
}
