import { expect, test } from "@playwright/test";
import { ChatPage } from "./pages/chat-page";
import { fakeOllama } from "./support/fake-ollama";
import { FAKE_WEB_URL } from "./support/servers";
import { unique } from "./support/unique";
import { QUOKKA_FACT } from "./support/web-pages";

test.beforeEach(async () => {
  await fakeOllama.reset();
});

/** The tool loop's first call (not streamed, tools offered) asks for these tool calls. */
const toolRound = (...toolCalls: { name: string; arguments: Record<string, unknown> }[]) => ({
  when: { hasTools: true },
  toolCalls,
});

test("a tool call shows as a card that runs, succeeds, opens on its observation, and is still there after a reload", async ({
  page,
}) => {
  const chat = new ChatPage(page);
  const url = `${FAKE_WEB_URL}/slow/quokka.html?ms=5000`;
  await fakeOllama.script(toolRound({ name: "scrape_url", arguments: { url } }));
  const question = unique("What is a quokka?");
  await chat.startConversation(question);

  const card = chat.toolCard("scrape_url");
  await expect(card).toHaveAttribute("data-state", "running");
  await expect(card).toContainText("Read page");
  await expect(card).toContainText("127.0.0.1:11500/slow/quokka.html?ms=5000");
  await expect(card).toHaveAttribute("data-state", "ok");

  // The answer streams in after the tool work, under the card.
  await chat.expectAnswerDone();
  await expect(chat.lastAnswer.getByTestId("answer-text")).toContainText(`Echo: ${question}`);
  await expect(chat.lastAnswer.getByTestId("message-footer")).toContainText("native tools");
  await expect(chat.lastAnswer.getByTestId("message-footer")).toContainText("2 iterations");

  await chat.openTrail();
  await card.getByTestId("tool-card-toggle").click();
  await expect(card.getByTestId("tool-card-toggle")).toHaveAttribute("aria-expanded", "true");
  await expect(card.getByTestId("tool-observation")).toContainText(QUOKKA_FACT);
  // Navigation and footers are not part of the text the model reads.
  await expect(card.getByTestId("tool-observation")).not.toContainText("Fake Zoo");
  await expect(card).toContainText(`"url": "${url}"`);

  await page.reload();
  await chat.expectAnswerDone();
  await expect(chat.toolCard("scrape_url")).toHaveAttribute("data-state", "ok");
  await chat.openTrail();
  await chat.toolCard("scrape_url").getByTestId("tool-card-toggle").click();
  await expect(chat.toolCard("scrape_url").getByTestId("tool-observation")).toContainText(QUOKKA_FACT);
});

test("parallel calls each get their card, a failing call is marked failed, and the search card shows its query", async ({
  page,
}) => {
  const chat = new ChatPage(page);
  await fakeOllama.script(
    toolRound(
      { name: "web_search", arguments: { query: "quokka diet" } },
      { name: "scrape_url", arguments: { url: `${FAKE_WEB_URL}/missing.html` } },
    ),
  );
  await chat.startConversation(unique("Quokka diet"));
  await chat.expectAnswerDone();

  await expect(chat.lastAnswer.getByTestId("tool-card")).toHaveCount(2);
  const search = chat.toolCard("web_search");
  await expect(search).toHaveAttribute("data-state", "ok");
  await expect(search).toContainText("quokka diet");
  await chat.openTrail();
  await search.getByTestId("tool-card-toggle").click();
  await expect(search.getByTestId("search-results").locator(`a[href="${FAKE_WEB_URL}/quokka.html"]`)).toBeVisible();

  const failed = chat.toolCard("scrape_url");
  await expect(failed).toHaveAttribute("data-state", "error");
  await expect(failed).toContainText("Failed");
  await failed.getByTestId("tool-card-toggle").click();
  await expect(failed.getByTestId("tool-observation")).toContainText("Failed to fetch");
});

test("thinking is shown folded above the answer and opens on click", async ({ page }) => {
  const chat = new ChatPage(page);
  await chat.open("/");
  await chat.chooseModel("qwen3:8b");
  await fakeOllama.script({
    when: { hasTools: true },
    content: "Quokkas are marsupials.",
    thinking: "The user wants a fact.",
  });
  await chat.startConversation(unique("Tell me a quokka fact"));
  await chat.expectAnswerDone();

  const thinking = chat.lastAnswer.getByTestId("thinking-block");
  await expect(thinking).toContainText("Thought");
  await thinking.getByRole("button").click();
  await expect(thinking).toContainText("The user wants a fact.");
});

test("in Japanese, a tool card's label, state and sections and the model picker read in Japanese", async ({ page }) => {
  const chat = new ChatPage(page);
  await page.goto("/settings");
  await page.getByTestId("language-select").selectOption("ja");
  await expect(page.locator("html")).toHaveAttribute("lang", "ja");

  await chat.open("/");
  await expect(chat.modelPicker).toHaveAccessibleName(/^モデル: /);
  await chat.modelPicker.click();
  const listbox = page.getByRole("listbox", { name: "モデル" });
  await expect(listbox).toBeVisible();
  await expect(listbox.locator('[data-capability="tools"]').first()).toHaveText("ツール");
  await page.keyboard.press("Escape");

  await fakeOllama.script(
    toolRound(
      { name: "web_search", arguments: { query: "quokka diet" } },
      { name: "scrape_url", arguments: { url: `${FAKE_WEB_URL}/missing.html` } },
    ),
  );
  await chat.startConversation(unique("クオッカの食べ物"));
  await chat.expectAnswerDone();
  await expect(chat.toolCard("web_search")).toContainText("ウェブ検索");
  const failed = chat.toolCard("scrape_url");
  await expect(failed).toContainText("ページを読む");
  await expect(failed).toContainText("失敗");
  await chat.openTrail();
  await failed.getByTestId("tool-card-toggle").click();
  await expect(failed).toContainText("引数");
  await expect(failed).toContainText("結果");
  await expect(chat.toolCard("web_search")).not.toContainText("Web search");
});
