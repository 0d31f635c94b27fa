import { expect, test } from "@playwright/test";
import { ChatPage } from "./pages/chat-page";
import { APP_OLLAMA_DOWN_URL } from "./support/servers";

test.use({ baseURL: APP_OLLAMA_DOWN_URL });

test("when Ollama is unreachable a banner says how to fix it, and a message is refused without being lost", async ({
  page,
}) => {
  const chat = new ChatPage(page);
  await chat.open("/");

  await expect(chat.banner).toBeVisible();
  await expect(chat.banner).toContainText("Ollama is not reachable");
  await expect(chat.banner).toContainText("ollama serve");
  await expect(chat.banner).toContainText("OLLAMA_BASE_URL");
  await expect(chat.modelPicker).toBeDisabled();

  await chat.send("Is anyone there?");
  await expect(chat.composerError).toContainText("Cannot reach Ollama");
  await expect(chat.composer).toHaveValue("Is anyone there?");
  await expect(page).toHaveURL("/");
  // The conversation created for the failed message is not left behind.
  const list = await (await page.request.get("/api/conversations")).json();
  expect(list.conversations).toEqual([]);
  await expect(chat.conversations).toHaveCount(0);

  await chat.screenshot("ollama-down");
});
