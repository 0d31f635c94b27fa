import { expect, type Page, test } from "@playwright/test";
import { ChatPage } from "./pages/chat-page";
import { fakeOllama } from "./support/fake-ollama";

/** A reply with the Markdown an answer typically has: headings, lists, code, a table. */
const RICH_ANSWER = [
  "Here is a quick comparison of the two approaches.\n\n",
  "## Streaming vs. buffering\n\n",
  "Streaming shows **tokens as they arrive**, so the user sees progress at once; buffering waits for the full answer.\n\n",
  "| Approach | First token | Memory |\n|---|---|---|\n| Streaming | ~50 ms | constant |\n| Buffering | full answer | grows |\n\n",
  "```ts\nfor await (const part of llm.streamChat(history)) {\n  render(part.text);\n}\n```\n\n",
  "1. Open a stream\n2. Render each delta\n3. Stop on `done`\n",
];

const schemes = ["light", "dark"] as const;
const sizes = [
  { name: "wide", viewport: { width: 1280, height: 800 } },
  { name: "narrow", viewport: { width: 390, height: 844 } },
] as const;

async function prepare(page: Page, scheme: (typeof schemes)[number]) {
  await page.emulateMedia({ colorScheme: scheme });
}

for (const size of sizes) {
  test.describe(`screens at ${size.name}`, () => {
    test.use({ viewport: size.viewport });

    for (const scheme of schemes) {
      test(`main screens in ${scheme} mode`, async ({ page }) => {
        await fakeOllama.reset();
        await prepare(page, scheme);
        const chat = new ChatPage(page);

        await chat.open("/");
        await expect(chat.modelPicker).toHaveAccessibleName(/Model: llama3\.2/);
        await chat.screenshot("home");

        // Only the streamed call is the answer the user sees (a tool round may come first).
        await fakeOllama.script({ when: { stream: true }, chunks: RICH_ANSWER, chunkDelayMs: 20 });
        await chat.startConversation("How does streaming compare to buffering the answer?");
        await chat.expectAnswerDone();
        await expect(chat.lastAnswer.getByRole("table")).toBeVisible();
        await chat.screenshot("conversation");

        await chat.modelPicker.click();
        await expect(page.getByRole("listbox")).toBeVisible();
        await chat.screenshot("model-picker");
        await page.keyboard.press("Escape");

        await chat.send("[slow] Count to forty, one line each");
        await expect(chat.lastAnswer).toContainText("line 4");
        await chat.screenshot("streaming");
        await chat.stopButton.click();
        await chat.expectAnswerDone("stopped");

        await fakeOllama.script({ errorStatus: 500, error: "model runner has unexpectedly stopped" });
        await chat.send("Then fail");
        await chat.expectAnswerDone("error");
        await chat.screenshot("stopped-and-error");

        if (size.name === "narrow") {
          await chat.openSidebar();
          await chat.screenshot("sidebar");
        }
      });
    }
  });
}
