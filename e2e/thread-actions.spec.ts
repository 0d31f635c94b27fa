import { expect, test } from "@playwright/test";
import { ChatPage } from "./pages/chat-page";
import { fakeOllama } from "./support/fake-ollama";
import { unique } from "./support/unique";

test.beforeEach(async () => {
  await fakeOllama.reset();
});

test("links in answers open in a new tab without access to this one", async ({ page }) => {
  const chat = new ChatPage(page);
  await fakeOllama.script({ when: { stream: true }, content: "See [the quokka page](https://example.org/quokka)." });
  await chat.startConversation(unique("Where can I read more?"));
  await chat.expectAnswerDone();
  const link = chat.lastAnswer.getByRole("link", { name: "the quokka page" });
  await expect(link).toHaveAttribute("href", "https://example.org/quokka");
  await expect(link).toHaveAttribute("target", "_blank");
  await expect(link).toHaveAttribute("rel", "noopener noreferrer");
});

test("a file pasted into the composer is attached, and Send says why it waits while it uploads", async ({ page }) => {
  const chat = new ChatPage(page);
  await chat.open("/");
  await chat.composer.fill("What is in this image?");
  // Uploads are held back so the disabled state can be seen.
  let release: () => void = () => {};
  const held = new Promise<void>((resolve) => {
    release = resolve;
  });
  await page.route("**/api/conversations/*/files", async (route) => {
    await held;
    await route.continue();
  });
  await chat.composer.evaluate((element) => {
    const png = Uint8Array.from(
      atob("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=="),
      (c) => c.charCodeAt(0),
    );
    const data = new DataTransfer();
    data.items.add(new File([png], "pasted.png", { type: "image/png" }));
    element.dispatchEvent(new ClipboardEvent("paste", { clipboardData: data, bubbles: true, cancelable: true }));
  });
  await expect(chat.attachmentChips.first()).toContainText("pasted.png");
  await expect(chat.sendButton).toBeDisabled();
  await expect(chat.sendButton).toHaveAttribute("title", /uploading/i);
  await expect(chat.sendButton).toHaveAccessibleDescription(/uploading/i);
  release();
  await expect(chat.sendButton).toBeEnabled();
});
