import { expect, type Page, test } from "@playwright/test";
import { encodedImage } from "../tests/support/image-fixtures";
import { makeTextPdf } from "../tests/support/pdf-fixtures";
import { ChatPage } from "./pages/chat-page";
import { fakeOllama, slowAnswer } from "./support/fake-ollama";
import { APP_ACCOUNTS_URL, FAKE_WEB_URL } from "./support/servers";

/** A reply with the Markdown an answer typically has: headings, lists, code, a table. */
const RICH_ANSWER = [
  "Here is a quick comparison of the two approaches.\n\n",
  "## Streaming vs. buffering\n\n",
  "Streaming shows **tokens as they arrive**, so the user sees progress at once; buffering waits for the full answer.\n\n",
  "| Approach | First token | Memory |\n|---|---|---|\n| Streaming | ~50 ms | constant |\n| Buffering | full answer | grows |\n\n",
  "```ts\nfor await (const part of llm.streamChat(history)) {\n  render(part.text);\n}\n```\n\n",
  "1. Open a stream\n2. Render each delta\n3. Stop on `done`\n",
];

const QUOKKA_ANSWER = [
  "Quokkas live on **Rottnest Island** and **Bald Island** off Western Australia, with small mainland populations.\n\n",
  "- **Diet:** grasses, leaves, stems and bark\n- **Active:** mostly at night\n- **Water:** can go long periods without it\n",
];

const QUOKKA_ANSWER_JA = [
  "クオッカは西オーストラリア沖の**ロットネスト島**と**ボールド島**に住み、本土にも小さな群れがいます。\n\n",
  "- **食べ物:** 草、葉、茎、樹皮\n- **活動:** 主に夜\n- **水:** 長いあいだ飲まずにいられる\n",
];

/** An answer citing its sources, with math and a table wider than a phone. */
const CITED_ANSWER = [
  "Quokkas live on **Rottnest Island** [1] and eat grasses and leaves [1].\n\n",
  "Their range shrank by about $r = 1 - \\tfrac{A_{now}}{A_{1900}} \\approx 0.5$ since 1900; a ferry ticket costs $5 and $10 return.\n\n",
  "$$\nN(t) = N_0 \\, e^{-\\lambda t}\n$$\n\n",
  "| Island | Area (km²) | Quokkas (estimate) | Note |\n|---|---|---|---|\n",
  "| Rottnest | 19 | 10 000–12 000 | ferries from Fremantle, no cats or foxes |\n",
  "| Bald | 8 | ~1 000 | uninhabited nature reserve, hard to reach |\n",
];

/** Two steps that can run at once, planned, run and judged. */
function scriptPlan() {
  return fakeOllama.script(
    {
      when: { lastUserIncludes: "Request:" },
      toolCalls: [
        {
          name: "make_plan",
          arguments: {
            steps: [
              { id: "habitat", task: "find where quokkas live", dependencies: [], tool_hint: "scrape_url" },
              { id: "diet", task: "find what quokkas eat", dependencies: [] },
              { id: "compare", task: "compare with the wallaby", dependencies: ["habitat", "diet"] },
            ],
          },
        },
      ],
    },
    {
      when: { lastUserIncludes: "Your step: find where quokkas live" },
      toolCalls: [{ name: "scrape_url", arguments: { url: `${FAKE_WEB_URL}/quokka.html` } }],
    },
    { when: { lastUserIncludes: "Your step: find where quokkas live" }, content: "Rottnest and Bald Island." },
    { when: { lastUserIncludes: "Your step: find what quokkas eat" }, content: "Grasses, leaves and bark." },
    { when: { lastUserIncludes: "Your step: compare" }, content: "Smaller, and island-bound." },
    {
      when: { lastUserIncludes: "Step results:" },
      toolCalls: [
        { name: "judge_results", arguments: { achieved: true, confidence: 0.9, final_answer: null, reasoning: "ok" } },
      ],
    },
    { when: { hasTools: false, stream: true }, chunks: QUOKKA_ANSWER, chunkDelayMs: 10 },
  );
}

const schemes = ["light", "dark"] as const;
const sizes = [
  { name: "wide", viewport: { width: 1280, height: 800 } },
  { name: "narrow", viewport: { width: 390, height: 844 } },
] as const;

async function prepare(page: Page, scheme: (typeof schemes)[number]) {
  await page.emulateMedia({ colorScheme: scheme });
}

// Screenshot artifacts for people to look at (test-results/): nothing compares them, so these are
// not tests of how the screens look; what they assert on the way is checked here as elsewhere.
for (const size of sizes) {
  test.describe(`screenshot artifacts at ${size.name}`, () => {
    test.use({ viewport: size.viewport });

    for (const scheme of schemes) {
      test(`artifact: main screens in ${scheme} mode`, async ({ page }) => {
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
        // Code is highlighted once Shiki has loaded the language.
        await expect(chat.lastAnswer.locator('pre span[style*="--sdm-c"]').first()).toBeVisible();
        await chat.screenshot("conversation");

        // A research turn: two tool calls, one of them opened, then the answer.
        await fakeOllama.script(
          {
            when: { hasTools: true },
            toolCalls: [
              { name: "web_search", arguments: { query: "quokka habitat and diet" } },
              { name: "scrape_url", arguments: { url: `${FAKE_WEB_URL}/quokka.html` } },
            ],
          },
          { when: { hasTools: false, stream: true }, chunks: QUOKKA_ANSWER, chunkDelayMs: 10 },
        );
        await chat.send("Where do quokkas live and what do they eat?");
        await chat.expectAnswerDone();
        await chat.openTrail();
        await chat.toolCard("scrape_url").getByTestId("tool-card-toggle").click();
        await chat.toolCard("scrape_url").scrollIntoViewIfNeeded();
        await chat.screenshot("tool-cards");

        // The composer with files: one uploaded PDF and one refused file.
        await chat.attach(
          {
            name: "field-notes.pdf",
            mimeType: "application/pdf",
            buffer: Buffer.from(makeTextPdf([["Notes"], ["More"], ["End"]])),
          },
          // A ZIP that is not a Word document: refused, so the chip shows its error.
          { name: "photos.zip", mimeType: "application/zip", buffer: Buffer.from("PK\x03\x04 not a document") },
        );
        await expect(chat.attachmentChips.first()).toHaveAttribute("data-state", "ready");
        await expect(chat.attachmentChips.last()).toHaveAttribute("data-state", "error");
        await chat.screenshot("attachments");
        for (const name of ["field-notes.pdf", "photos.zip"]) {
          await page.getByRole("button", { name: `Remove ${name}` }).click();
        }

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

        await page.goto("/settings");
        await expect(page.getByTestId("ollama-check")).toBeVisible();
        await chat.screenshot("settings");

        // Settings → Models with a pull under way (leaving the page ends it).
        await fakeOllama.registry({ chunksPerLayer: 400, chunkDelayMs: 100 });
        await page.getByLabel("Pull a model by name").fill("mistral:7b");
        await page.getByTestId("pull-start").click();
        await expect(page.getByTestId("pull-bytes")).toContainText("%");
        await page.getByTestId("settings-models").scrollIntoViewIfNeeded();
        await chat.screenshot("settings-models");

        // The accounts instance: sign-in page, then the admin page (an admin exists by now, or is made).
        await page.goto(`${APP_ACCOUNTS_URL}/login`);
        await expect(page.getByTestId("login-title")).toBeVisible();
        await chat.screenshot("login");
        await signInOrCreateAdmin(page);
        await page.goto(`${APP_ACCOUNTS_URL}/admin`);
        await expect(page.getByTestId("user-row").first()).toBeVisible();
        await chat.screenshot("admin");
      });
    }

    for (const scheme of schemes) {
      test(`artifact: answer features in ${scheme} mode`, async ({ page }) => {
        await fakeOllama.reset();
        await prepare(page, scheme);
        const chat = new ChatPage(page);

        // A researched answer: the folded trail, source chips, [n] links, math and a scrolling table.
        await fakeOllama.script(
          {
            when: { hasTools: true },
            toolCalls: [
              { name: "web_search", arguments: { query: "quokka habitat" } },
              { name: "scrape_url", arguments: { url: `${FAKE_WEB_URL}/quokka.html` } },
            ],
          },
          { when: { hasTools: false, stream: true }, chunks: CITED_ANSWER, chunkDelayMs: 10 },
        );
        await chat.startConversation("Where do quokkas live, and how many are left?");
        await chat.expectAnswerDone();
        await expect(chat.lastAnswer.locator(".katex").first()).toBeVisible();
        await expect(chat.lastAnswer.getByTestId("run-trail-toggle")).toHaveAttribute("aria-expanded", "false");
        await chat.screenshot("answer-sources-math");

        // Regenerated: the earlier answer stays as version 1 of 2.
        await fakeOllama.script({ when: { stream: true }, chunks: QUOKKA_ANSWER, chunkDelayMs: 10 });
        await chat.lastAnswer.getByTestId("regenerate-button").click();
        await chat.expectAnswerDone();
        await expect(chat.lastAnswer.getByTestId("version-label")).toHaveText("2/2");
        await chat.screenshot("versions");
        await chat.lastAnswer.getByRole("button", { name: "Previous version" }).click();
        await expect(chat.lastAnswer.getByTestId("version-label")).toHaveText("1/2");
        await chat.openTrail();
        await chat.toolCard("web_search").getByTestId("tool-card-toggle").click();
        await chat.toolCard("web_search").scrollIntoViewIfNeeded();
        await chat.screenshot("search-card");

        // Plan first: the plan card with its steps, their models and times.
        await scriptPlan();
        await page.getByTestId("plan-first-toggle").click();
        await chat.send("Research quokkas step by step and compare them with the wallaby");
        await chat.expectAnswerDone();
        await chat.openTrail();
        await chat.lastAnswer.getByTestId("plan-card").scrollIntoViewIfNeeded();
        await chat.screenshot("plan-card");
        await page.getByTestId("plan-first-toggle").click();

        // An image for a model that can't see it: the chip says so before sending.
        await chat.attach({ name: "photo.png", mimeType: "image/png", buffer: encodedImage("png", 64, 48) });
        await expect(page.getByTestId("attachment-vision-warning")).toBeVisible();
        await chat.screenshot("vision-warning");
        await page.getByRole("button", { name: "Remove photo.png" }).click();

        // A follow-up the stopped run never took stays as an unsent message.
        await fakeOllama.script(slowAnswer("counting", 400));
        await chat.send("Count slowly");
        await expect(chat.lastAnswer).toContainText("line 1");
        await chat.send("Also count backwards");
        await expect(page.locator('[data-testid="message-user"][data-interrupt-pending="true"]')).toHaveCount(1);
        await chat.stopButton.click();
        await chat.expectAnswerDone("stopped");
        await expect(page.getByTestId("message-unsent")).toBeVisible();
        await chat.screenshot("unsent-follow-up");
      });
    }

    test("artifact: main screens in Japanese", async ({ page }) => {
      await fakeOllama.reset();
      const chat = new ChatPage(page);
      await page.goto("/settings");
      await page.getByTestId("language-select").selectOption("ja");
      await expect(page.locator("html")).toHaveAttribute("lang", "ja");
      await expect(page.getByRole("heading", { level: 1 })).toHaveText("設定");
      await chat.screenshot("ja-settings");
      await page.goto("/");
      await expect(chat.composer).toBeVisible();
      await expect(chat.modelPicker).toHaveAccessibleName(/モデル: llama3\.2/);
      await chat.screenshot("ja-home");

      // A research turn in Japanese: the tool cards, their states and the opened one read in Japanese.
      await fakeOllama.script(
        {
          when: { hasTools: true },
          toolCalls: [
            { name: "web_search", arguments: { query: "クオッカ 生息地 食べ物" } },
            { name: "scrape_url", arguments: { url: `${FAKE_WEB_URL}/quokka.html` } },
          ],
        },
        { when: { hasTools: false, stream: true }, chunks: QUOKKA_ANSWER_JA, chunkDelayMs: 10 },
      );
      await chat.startConversation("クオッカはどこに住んでいて、何を食べますか？");
      await chat.expectAnswerDone();
      await expect(chat.toolCard("web_search")).toContainText("ウェブ検索");
      await expect(chat.toolCard("scrape_url")).toContainText("ページを読む");
      await chat.openTrail();
      await chat.toolCard("scrape_url").getByTestId("tool-card-toggle").click();
      await expect(chat.toolCard("scrape_url")).toContainText("結果");
      await chat.toolCard("scrape_url").scrollIntoViewIfNeeded();
      await chat.screenshot("ja-tool-cards");

      // The composer's file chips and the model picker with its capability badges.
      await chat.attach(
        {
          name: "field-notes.pdf",
          mimeType: "application/pdf",
          buffer: Buffer.from(makeTextPdf([["Notes"], ["More"], ["End"]])),
        },
        // A ZIP that is not a Word document: refused, so the chip shows its error.
        { name: "photos.zip", mimeType: "application/zip", buffer: Buffer.from("PK\x03\x04 not a document") },
      );
      await expect(chat.attachmentChips.first()).toHaveAttribute("data-state", "ready");
      await expect(chat.attachmentChips.first()).toContainText("3 ページ");
      await expect(chat.attachmentChips.last()).toHaveAttribute("data-state", "error");
      await chat.screenshot("ja-attachments");
      for (const name of ["field-notes.pdf", "photos.zip"]) {
        await page.getByRole("button", { name: `${name} を取り除く` }).click();
      }

      await chat.modelPicker.click();
      await expect(page.getByRole("listbox", { name: "モデル" })).toBeVisible();
      await expect(page.getByTestId("model-option").filter({ hasText: "gemma:2b" })).toContainText("ツールなし");
      await chat.screenshot("ja-model-picker");
      await page.keyboard.press("Escape");

      await chat.filesButton.click();
      await expect(page.getByTestId("files-panel")).toContainText("エージェント");
      await chat.screenshot("ja-files");
      await page.keyboard.press("Escape");

      // Remembered across reloads.
      await page.reload();
      await expect(page.locator("html")).toHaveAttribute("lang", "ja");
      await page.goto(`${APP_ACCOUNTS_URL}/login`);
      await chat.screenshot("ja-login");
    });
  });
}

/** On the accounts instance: signs in as the e2e admin, creating it when this runs first. */
async function signInOrCreateAdmin(page: Page) {
  await page.getByTestId("login-username").fill("admin");
  await page.getByTestId("login-password").fill("correct horse battery");
  await page.getByTestId("login-submit").click();
  await expect(page.getByTestId("current-user")).toBeAttached();
}
