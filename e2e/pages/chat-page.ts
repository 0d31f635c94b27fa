import { expect, type Locator, type Page } from "@playwright/test";

/** The chat UI as a user sees it; tests talk to it through these names, not selectors. */
export class ChatPage {
  readonly composer: Locator;
  readonly sendButton: Locator;
  readonly stopButton: Locator;
  readonly newChatButton: Locator;
  readonly conversations: Locator;
  readonly userMessages: Locator;
  readonly assistantMessages: Locator;
  readonly modelPicker: Locator;
  readonly banner: Locator;
  readonly composerError: Locator;
  readonly title: Locator;
  readonly attachButton: Locator;
  readonly attachmentChips: Locator;
  readonly filesButton: Locator;

  constructor(readonly page: Page) {
    this.composer = page.getByTestId("composer-input");
    this.sendButton = page.getByTestId("send-button");
    this.stopButton = page.getByTestId("stop-button");
    this.newChatButton = page.getByTestId("new-chat");
    this.conversations = page.getByTestId("conversation-item");
    this.userMessages = page.getByTestId("message-user");
    this.assistantMessages = page.getByTestId("message-assistant");
    this.modelPicker = page.getByTestId("model-picker");
    this.banner = page.getByTestId("ollama-banner");
    this.composerError = page.getByTestId("composer-error");
    this.title = page.getByTestId("conversation-title-heading");
    this.attachButton = page.getByTestId("attach-button");
    this.attachmentChips = page.getByTestId("attachment-chip");
    this.filesButton = page.getByTestId("files-button");
  }

  /** The last answer's card for a call of `tool`. */
  toolCard(tool: string): Locator {
    return this.lastAnswer.locator(`[data-testid="tool-card"][data-tool="${tool}"]`);
  }

  /** Opens the last answer's research trail, which folds into one line once a run that used tools is done. */
  async openTrail(): Promise<void> {
    const toggle = this.lastAnswer.getByTestId("run-trail-toggle");
    await expect(toggle).toHaveAttribute("aria-expanded", "false");
    await toggle.click();
    await expect(toggle).toHaveAttribute("aria-expanded", "true");
  }

  /** Attaches files through the paperclip button and the browser's file chooser. */
  async attach(...files: { name: string; mimeType: string; buffer: Buffer }[]): Promise<void> {
    const chooser = this.page.waitForEvent("filechooser");
    await this.attachButton.click();
    await (await chooser).setFiles(files);
  }

  get sidebar(): Locator {
    return this.page.getByRole("complementary", { name: "Conversations" });
  }

  /** Phones: opens the drawer and waits until it has slid fully in. */
  async openSidebar(): Promise<void> {
    await this.page.getByRole("button", { name: "Open sidebar" }).click();
    await expect(this.sidebar).toBeVisible();
    await expect.poll(async () => (await this.sidebar.boundingBox())?.x).toBe(0);
  }

  get lastAnswer(): Locator {
    return this.assistantMessages.last();
  }

  async open(path = "/"): Promise<void> {
    await this.page.goto(path);
    await expect(this.composer).toBeVisible();
  }

  conversation(title: string | RegExp): Locator {
    return this.conversations.filter({ has: this.page.getByTestId("conversation-title").getByText(title) });
  }

  /** Types the text and presses Enter. */
  async send(text: string): Promise<void> {
    await this.composer.fill(text);
    await this.composer.press("Enter");
  }

  /** From the empty screen: sends the first message and waits for the conversation's URL; returns its id. */
  async startConversation(text: string): Promise<string> {
    await this.open("/");
    await this.send(text);
    await this.page.waitForURL(/\/c\/[^/]+$/);
    return this.conversationId();
  }

  conversationId(): string {
    const match = /\/c\/([^/?#]+)/.exec(this.page.url());
    if (!match?.[1]) throw new Error(`not on a conversation page: ${this.page.url()}`);
    return decodeURIComponent(match[1]);
  }

  /** `timeout` for an answer streamed slowly on purpose: the default one is shorter than its stream. */
  async expectAnswerDone(
    status: "complete" | "stopped" | "error" | "interrupted" = "complete",
    { timeout }: { timeout?: number } = {},
  ): Promise<void> {
    await expect(this.lastAnswer).toHaveAttribute("data-status", status, { timeout });
  }

  async chooseModel(name: string): Promise<void> {
    await this.modelPicker.click();
    await this.page.getByRole("option", { name: new RegExp(`^${name.replace(/[.:]/g, "\\$&")}`) }).click();
    await expect(this.modelPicker).toHaveAccessibleName(`Model: ${name}`);
  }

  async screenshot(name: string): Promise<void> {
    const scheme = await this.page.evaluate(() =>
      document.documentElement.classList.contains("dark") ? "dark" : "light",
    );
    const width = this.page.viewportSize()?.width ?? 1280;
    await this.page.screenshot({
      path: `test-results/screens/${name}-${scheme}-${width < 700 ? "narrow" : "wide"}.png`,
    });
  }
}
