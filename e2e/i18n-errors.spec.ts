import { expect, type Page, test } from "@playwright/test";
import { makeZip } from "../tests/support/zip-fixtures";
import { ChatPage } from "./pages/chat-page";
import { fakeOllama } from "./support/fake-ollama";
import { APP_OLLAMA_DOWN_URL } from "./support/servers";
import { unique } from "./support/unique";

// The browser asks for Japanese and nobody picked a language: the UI is in Japanese, and so is every
// error the server refuses something with (worded in the browser from its code and details).
test.use({ locale: "ja-JP" });

test.beforeEach(async () => {
  await fakeOllama.reset();
});

async function openInJapanese(page: Page, path = "/"): Promise<ChatPage> {
  const chat = new ChatPage(page);
  await chat.open(path);
  await expect(page.locator("html")).toHaveAttribute("lang", "ja");
  return chat;
}

test("a refused upload says why in Japanese, with the limit it broke", async ({ page }) => {
  const chat = await openInJapanese(page);
  const zip = makeZip([{ name: "notes.txt", data: Buffer.from("just some notes\n") }]);
  // Over MAX_TEXT_FILE_MB (5) and under the upload limit (MAX_FETCH_MB, 10).
  const long = Buffer.alloc(6 * 1024 * 1024, "a");
  await chat.attach(
    { name: "notes.zip", mimeType: "application/zip", buffer: zip },
    { name: "long.txt", mimeType: "text/plain", buffer: long },
  );
  const errors = page.getByTestId("attachment-error");
  await expect(errors).toHaveText([
    "この ZIP ファイルは Word 文書ではないため添付できません。",
    "このテキストファイルはテキストファイルの上限（5.0 MB）を超えています。",
  ]);
});

test("a failed run's error is in Japanese, live and after a reload", async ({ page }) => {
  const chat = await openInJapanese(page);
  await fakeOllama.script({ errorStatus: 500, error: "model runner has unexpectedly stopped" });
  await chat.send(unique("This will break"));
  await page.waitForURL(/\/c\/[^/]+$/);

  for (const pass of ["live", "reloaded"]) {
    if (pass === "reloaded") await page.reload();
    await chat.expectAnswerDone("error");
    await expect(chat.lastAnswer.getByTestId("message-status")).toHaveText("エラー");
    // Ollama's own words are passed on as they came.
    await expect(chat.lastAnswer.getByTestId("message-error")).toHaveText(
      "Ollama のエラー: model runner has unexpectedly stopped",
    );
  }
});

test("a turn refused before it starts names the missing model, in Japanese", async ({ page }) => {
  const chat = await openInJapanese(page);
  await chat.send(unique("Model that will vanish"));
  await page.waitForURL(/\/c\/[^/]+$/);
  await chat.expectAnswerDone();
  const patched = await page.request.patch(`/api/conversations/${chat.conversationId()}`, {
    data: { model: "ghost-model:1b" },
  });
  expect(patched.ok()).toBe(true);

  await page.reload();
  await chat.send("This should not be lost");
  await expect(chat.composerError).toHaveText(
    "モデル「ghost-model:1b」はサーバーからなくなりました。別のモデルを選ぶか、もう一度インストールしてください（Ollama のモデルは設定画面で取得できます）。",
  );
  await expect(chat.composer).toHaveValue("This should not be lost");
});

test("a value out of range in the chat's settings is refused with the field and its limit, in Japanese", async ({
  page,
}) => {
  const chat = await openInJapanese(page);
  await chat.send(unique("Out of range"));
  await page.waitForURL(/\/c\/[^/]+$/);
  await chat.expectAnswerDone();
  await page.getByRole("button", { name: "チャット設定" }).click();
  const dialog = page.getByTestId("chat-settings-dialog");
  await dialog.getByLabel("温度（temperature）").fill("5");
  await dialog.getByTestId("chat-settings-save").click();
  await expect(dialog.getByTestId("chat-settings-error")).toHaveText("温度（temperature）は2以下にしてください。");
});

test.describe("with Ollama down", () => {
  test.use({ baseURL: APP_OLLAMA_DOWN_URL });

  test("a message is refused in Japanese, and kept", async ({ page }) => {
    const chat = await openInJapanese(page);
    await chat.send("誰かいますか？");
    await expect(chat.composerError).toHaveText(
      "Ollama に接続できません。起動しているか確認してください。接続先は管理者が設定画面で確認できます。",
    );
    await expect(chat.composer).toHaveValue("誰かいますか？");
  });
});

test("the import report says in Japanese why each item was skipped", async ({ page }) => {
  await openInJapanese(page);
  await page.goto("/settings");
  const title = unique("未来のエクスポート");
  const archive = makeZip([
    {
      name: "future.json",
      data: Buffer.from(JSON.stringify({ format: "ollama-web.conversation", version: 4, conversation: { title } })),
    },
    { name: "notes.txt", data: Buffer.from("hello") },
  ]);
  await page
    .getByLabel("会話をインポート")
    .setInputFiles({ name: "old.zip", mimeType: "application/zip", buffer: archive });
  await expect(page.getByTestId("import-skipped")).toHaveText([
    `${title}: エクスポートのバージョン 4 はここでは読めません（このサーバーが読めるのはバージョン 1, 2, 3 です）。`,
    "notes.txt: 会話のエクスポートではありません（アーカイブ内の .json ファイルだけを読み込みます）。",
  ]);
});
