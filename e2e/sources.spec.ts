import { expect, test } from "@playwright/test";
import { ChatPage } from "./pages/chat-page";
import { fakeOllama } from "./support/fake-ollama";
import { FAKE_WEB_URL } from "./support/servers";
import { unique } from "./support/unique";

test.beforeEach(async () => {
  await fakeOllama.reset();
});

const QUOKKA_URL = `${FAKE_WEB_URL}/quokka.html`;
const LONG_WORD = "Pneumonoultramicroscopicsilicovolcanoconiosis";
const ANSWER = [
  "Quokkas live on Rottnest Island [1]. A number no source has stays [9].",
  "",
  "Energy is $E=mc^2$, a ticket costs $5 and $10 with a pass.",
  "",
  "$$",
  "\\int_0^1 x\\,dx",
  "$$",
  "",
  `| Animal | Longest word | Note |`,
  `|---|---|---|`,
  `| quokka | ${LONG_WORD} | \\(x_1\\) and more words in this column ${LONG_WORD} |`,
].join("\n");

async function researchedAnswer(chat: ChatPage) {
  await fakeOllama.script(
    {
      when: { hasTools: true },
      toolCalls: [
        { name: "web_search", arguments: { query: "quokka" } },
        { name: "scrape_url", arguments: { url: QUOKKA_URL } },
      ],
    },
    { when: { hasTools: false, stream: true }, content: ANSWER },
  );
  await chat.startConversation(unique("Where do quokkas live?"));
  await chat.expectAnswerDone();
}

test("the finished run folds its trail into one line that opens; the search card lists results as links", async ({
  page,
}) => {
  const chat = new ChatPage(page);
  await researchedAnswer(chat);
  const toggle = chat.lastAnswer.getByTestId("run-trail-toggle");
  await expect(toggle).toHaveText(/^1 round · 1 source · /);
  await expect(toggle).toHaveAttribute("aria-expanded", "false");
  await expect(chat.toolCard("web_search")).toBeHidden();

  await toggle.focus();
  await page.keyboard.press("Enter");
  await expect(toggle).toHaveAttribute("aria-expanded", "true");
  const search = chat.toolCard("web_search");
  await expect(search).toBeVisible();
  await search.getByTestId("tool-card-toggle").click();
  const result = search.getByTestId("search-result").first();
  await expect(result.getByRole("link", { name: "The quokka" })).toHaveAttribute("href", QUOKKA_URL);
  await expect(result.getByRole("link", { name: "The quokka" })).toHaveAttribute("target", "_blank");
  await expect(result.getByRole("link", { name: "The quokka" })).toHaveAttribute("rel", "noopener noreferrer");
  await expect(result).toContainText("127.0.0.1");
  await expect(result).toContainText("A small marsupial of Rottnest Island.");
  await expect(search).not.toContainText('"href"');

  const read = chat.toolCard("scrape_url");
  await read.getByTestId("tool-card-toggle").click();
  await expect(read.getByTestId("tool-source")).toContainText("Source 1:");
  await expect(read.getByTestId("tool-source").getByRole("link")).toHaveAttribute("href", QUOKKA_URL);

  await toggle.click();
  await expect(toggle).toHaveAttribute("aria-expanded", "false");
});

test("chips list the pages read and a checked [n] opens source n's passage with a link to it, also after a reload", async ({
  page,
}) => {
  const chat = new ChatPage(page);
  await researchedAnswer(chat);
  for (const reloaded of [false, true]) {
    if (reloaded) {
      await page.reload();
      await chat.expectAnswerDone();
    }
    const chips = chat.lastAnswer.getByTestId("source-chip");
    await expect(chips).toHaveCount(1);
    await expect(chips.first()).toContainText("The quokka");
    await expect(chips.first().getByRole("link")).toHaveAttribute("href", QUOKKA_URL);
    // The run's end checked [1] against source 1: a chip that opens its passage; [9] names no source and stays text.
    const citation = chat.lastAnswer.getByTestId("citation");
    await expect(citation).toHaveCount(1);
    await expect(citation).toHaveText("[1]");
    await expect(citation).toHaveAttribute("data-verdict", "found");
    await citation.click();
    const open = page.getByTestId("citation-popover").getByTestId("citation-open");
    await expect(open).toHaveAttribute("href", new RegExp(`^${QUOKKA_URL.replace(/[.?]/g, "\\$&")}`));
    await expect(open).toHaveAttribute("rel", "noopener noreferrer");
    await page.keyboard.press("Escape");
    await expect(chat.lastAnswer.getByTestId("answer-text")).toContainText("stays [9].");
  }
});

test("math renders with KaTeX and dollar amounts stay text", async ({ page }) => {
  const chat = new ChatPage(page);
  await researchedAnswer(chat);
  const answer = chat.lastAnswer.getByTestId("answer-text");
  await expect(answer.locator(".katex")).toHaveCount(3);
  await expect(answer.locator(".katex-display")).toHaveCount(1);
  await expect(answer.locator("td .katex")).toHaveCount(1);
  await expect(answer).toContainText("a ticket costs $5 and $10 with a pass.");
  await expect(answer).not.toContainText("$$");
  await expect(answer).not.toContainText("\\(");
  // KaTeX's fonts come from this app.
  const fonts = await page.evaluate(() =>
    performance
      .getEntriesByType("resource")
      .map((entry) => entry.name)
      .filter((name) => /katex|KaTeX/i.test(name)),
  );
  for (const font of fonts) expect(new URL(font).origin).toBe(new URL(page.url()).origin);
});

test("at 390 px a wide table scrolls in its own focusable region, words unbroken, the page does not scroll", async ({
  page,
}) => {
  await page.setViewportSize({ width: 390, height: 844 });
  const chat = new ChatPage(page);
  await researchedAnswer(chat);
  const region = chat.lastAnswer.getByTestId("answer-table-scroll");
  await expect(region).toHaveAttribute("tabindex", "0");
  await expect(region).toHaveAccessibleName("Table (scrolls sideways)");
  const sizes = await region.evaluate((el) => ({ scroll: el.scrollWidth, client: el.clientWidth }));
  expect(sizes.scroll).toBeGreaterThan(sizes.client);
  const page_ = await page.evaluate(() => ({
    scroll: document.documentElement.scrollWidth,
    client: document.documentElement.clientWidth,
  }));
  expect(page_.scroll).toBeLessThanOrEqual(page_.client);
  // The long word sits on one line: a word broken mid-word would give its text two boxes.
  const lines = await region
    .locator("td", { hasText: LONG_WORD })
    .first()
    .evaluate((cell) => {
      const range = document.createRange();
      range.selectNodeContents(cell);
      return range.getClientRects().length;
    });
  expect(lines).toBe(1);
  await region.focus();
  await page.keyboard.press("ArrowRight");
  await expect.poll(() => region.evaluate((el) => el.scrollLeft)).toBeGreaterThan(0);
});
