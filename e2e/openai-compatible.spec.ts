import { expect, type Page, test } from "@playwright/test";
import { ChatPage } from "./pages/chat-page";
import { fakeOllama } from "./support/fake-ollama";
import { fakeOpenAI } from "./support/fake-openai";
import { screenshotVariants } from "./support/screens";
import { FAKE_OPENAI_KEY, FAKE_OPENAI_URL, FAKE_WEB_URL } from "./support/servers";
import { unique } from "./support/unique";

/**
 * OpenAI-compatible servers (docs/architecture.md, "OpenAI-compatible servers"): the first app
 * instance lists one fake vLLM under `llama` and `gpu` (its key) and `locked` (a wrong key), beside
 * the fake Ollama, whose models stay the default (playwright.config.ts).
 */

const MODEL = "Qwen/Qwen3-8B";
const LLAMA = `${MODEL}@llama`;
const GPU = `${MODEL}@gpu`;

test.beforeEach(async () => {
  await fakeOllama.reset();
  await fakeOpenAI.reset();
  // The title asked for after a first answer goes to the conversation's model: a short one, as a model would.
  await fakeOpenAI.script(
    ...["First answer", "Second answer"].map((content) => ({
      when: { stream: false, hasTools: false, lastUserIncludes: "Write a short title" },
      content,
    })),
  );
});

const option = (page: Page, name: string) => page.locator(`[data-testid="model-option"][data-model="${name}"]`);

async function pick(chat: ChatPage, name: string): Promise<void> {
  await chat.modelPicker.click();
  await option(chat.page, name).click();
}

test("a server's model, picked by its server's label, answers streamed from that server, not from Ollama", async ({
  page,
}) => {
  const chat = new ChatPage(page);
  await chat.open();
  // Ollama's model stays the default; the server's models come after, under their labels.
  await expect(chat.modelPicker).toHaveAccessibleName(/^Model: llama3\.2:latest$/);
  await chat.modelPicker.click();
  const groups = page.getByTestId("model-group");
  await expect(groups).toHaveCount(3);
  await expect(groups.nth(0)).toContainText("Ollama");
  await expect(groups.nth(1)).toContainText("llama · OpenAI-compatible");
  await expect(groups.nth(2)).toContainText("gpu · OpenAI-compatible");
  // One name on two servers: one choice per server, each with its label.
  await expect(option(page, LLAMA).getByTestId("model-server")).toHaveText("· llama");
  await expect(option(page, GPU).getByTestId("model-server")).toHaveText("· gpu");
  await expect(page.locator('[data-testid="model-option"][data-model$="@locked"]')).toHaveCount(0);
  await screenshotVariants(page, chat, "openai-picker", async () => {
    if ((await chat.modelPicker.getAttribute("aria-expanded")) !== "true") await chat.modelPicker.click();
    await option(page, GPU).scrollIntoViewIfNeeded();
  });
  await page.keyboard.press("Escape");

  await pick(chat, LLAMA);
  await expect(chat.modelPicker).toHaveAccessibleName(`Model: ${MODEL} · llama`);
  await expect(chat.modelPicker.getByTestId("model-picker-server")).toHaveText("llama");

  await fakeOpenAI.script({
    when: { stream: true, lastUserIncludes: "Capital of Norway" },
    chunks: ["Os", "lo is ", "the capital", " of Norway."],
    chunkDelayMs: 150,
  });
  await chat.send(unique("Capital of Norway?"));
  await page.waitForURL(/\/c\/[^/]+$/);
  const text = chat.lastAnswer.getByTestId("answer-text");
  // Streamed: the first pieces show before the answer is done.
  await expect(text).toContainText("Oslo is");
  await chat.expectAnswerDone();
  await expect(text).toHaveText("Oslo is the capital of Norway.");
  await expect(chat.lastAnswer.getByTestId("message-footer")).toContainText(`${MODEL} · llama`);

  const calls = (await fakeOpenAI.chatRequests()).filter((request) => request.body?.stream === true);
  const answered = calls.find((request) => JSON.stringify(request.body.messages).includes("Capital of Norway"));
  expect(answered?.body.model).toBe(MODEL);
  expect(answered?.headers.authorization).toBe(`Bearer ${FAKE_OPENAI_KEY}`);
  expect(
    (await fakeOllama.streamedChatRequests()).some((request) =>
      JSON.stringify(request.body.messages).includes("Capital of Norway"),
    ),
  ).toBe(false);
});

test("a chat on a model of a server that refused its key says which server, not that the model is missing", async ({
  page,
}) => {
  const chat = new ChatPage(page);
  const id = await chat.startConversation(unique("Key refused"));
  await chat.expectAnswerDone();
  const patched = await page.request.patch(`/api/conversations/${id}`, { data: { model: `${MODEL}@locked` } });
  expect(patched.ok()).toBe(true);
  await page.reload();
  const notice = page.getByTestId("model-tools-warning");
  await expect(notice).toContainText("The server “locked” refused its API key");
  await expect(notice).not.toContainText("not installed");
});

test("a tool call round on a server's model shows its step, and the answer follows it", async ({ page }) => {
  const chat = new ChatPage(page);
  await chat.open();
  await pick(chat, LLAMA);
  const question = unique("What does a quokka eat?");
  await fakeOpenAI.script({
    when: { hasTools: true, lastUserIncludes: "quokka" },
    toolCalls: [{ name: "scrape_url", arguments: { url: `${FAKE_WEB_URL}/quokka.html` } }],
  });
  await chat.send(question);
  await page.waitForURL(/\/c\/[^/]+$/);
  await chat.expectAnswerDone();

  const card = chat.toolCard("scrape_url");
  await expect(card).toHaveAttribute("data-state", "ok");
  await expect(card).toContainText("127.0.0.1:11500/quokka.html");
  // The answer is written after the tool work, from what it read (the fake echoes its prompt).
  const answer = chat.lastAnswer.getByTestId("answer-text");
  await expect(answer).toContainText(question);
  await expect(answer).toContainText("The quokka is a small marsupial");
  await expect(chat.lastAnswer.getByTestId("message-footer")).toContainText("native tools");

  // The tool's result went back to the server as a tool message answering its call.
  const withResult = (await fakeOpenAI.chatRequests()).find((request) =>
    (request.body.messages ?? []).some((message: { role: string }) => message.role === "tool"),
  );
  expect(withResult?.body.model).toBe(MODEL);
  await chat.openTrail();
  await screenshotVariants(page, chat, "openai-tool-step", () => card.scrollIntoViewIfNeeded());
});

test("the admin's servers view shows each server up, or refusing its key by its label, and an ability override reaches the picker", async ({
  page,
}) => {
  await page.goto("/settings");
  const servers = page.getByTestId("openai-servers");
  const llama = servers.locator('[data-testid="openai-server"][data-label="llama"]');
  await expect(llama).toHaveAttribute("data-state", "up");
  await expect(llama).toContainText(`${FAKE_OPENAI_URL}/v1`);
  await expect(llama).toContainText("1 model");
  await expect(llama).toContainText("API key: ••••");
  const locked = servers.locator('[data-testid="openai-server"][data-label="locked"]');
  await expect(locked).toHaveAttribute("data-state", "key_refused");
  await expect(locked.getByTestId("openai-server-error")).toContainText('"locked"');
  await expect(locked.getByTestId("openai-server-error")).toContainText("API key");
  // The keys themselves are shown nowhere.
  await expect(page.locator("body")).not.toContainText(FAKE_OPENAI_KEY);
  // A server's models are not Ollama's: they are not offered for deletion there.
  await expect(page.locator(`[data-testid="installed-model"][data-model="${LLAMA}"]`)).toHaveCount(0);

  const row = llama.locator(`[data-testid="model-ability-row"][data-model="${LLAMA}"]`);
  const tools = row.locator('[data-testid="ability-override"][data-ability="tool_call"]');
  const vision = row.locator('[data-testid="ability-override"][data-ability="vision"]');
  await expect(tools).toHaveValue("auto");
  await expect(tools).toHaveAccessibleName(`Tool calling for ${MODEL}`);
  try {
    await tools.selectOption("off");
    await vision.selectOption("on");
    await expect(row.locator('[data-capability="vision"]')).toBeVisible();
    await expect(row.locator('[data-capability="tools"]')).toHaveCount(0);
    await servers.scrollIntoViewIfNeeded();
    await screenshotVariants(page, new ChatPage(page), "openai-servers", () => servers.scrollIntoViewIfNeeded());
    const stored = await (await page.request.get("/api/settings")).json();
    expect(stored.modelAbilities[LLAMA]).toEqual({ tool_call: false, vision: true });
    // Still so after a reload; the other server's same-named model keeps its own.
    await page.reload();
    await expect(tools).toHaveValue("off");
    await expect(vision).toHaveValue("on");
    await expect(
      servers.locator(`[data-testid="model-ability-row"][data-model="${GPU}"] [data-ability="tool_call"]`),
    ).toHaveValue("auto");

    const chat = new ChatPage(page);
    await chat.open();
    await chat.modelPicker.click();
    await expect(option(page, LLAMA)).toContainText("no tools · JSON mode");
    await expect(option(page, LLAMA).locator('[data-capability="vision"]')).toBeVisible();
    await expect(option(page, GPU).locator('[data-capability="vision"]')).toHaveCount(0);
  } finally {
    await page.request.patch("/api/settings", { data: { modelAbilities: { [LLAMA]: null } } });
  }
  await page.goto("/settings");
  await expect(tools).toHaveValue("auto");
  await expect(vision).toHaveValue("auto");
});
