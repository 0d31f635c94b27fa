import { expect, type Page, test } from "@playwright/test";
import { makeTextPdf } from "../tests/support/pdf-fixtures";
import { ChatPage } from "./pages/chat-page";
import { fakeOllama } from "./support/fake-ollama";
import { screenshotVariants, tokenGiven } from "./support/screens";
import { unique } from "./support/unique";

// Projects (docs/architecture.md, "Projects and memory"): a project with a file; a new chat in it
// finds the file through search_files and reads a page of it; the project's instructions reach the model.

test.beforeEach(async () => {
  await fakeOllama.reset();
});

const HANDBOOK = {
  name: "field-handbook.pdf",
  mimeType: "application/pdf",
  buffer: Buffer.from(
    makeTextPdf([
      ["Field handbook", "Part 1: what to pack."],
      ["Part 2: radios and their channels."],
      ["Part 3: the glacier route", "The glacier route closes at 14:00 every day in July."],
    ]),
  ),
};

async function createProjectWithFile(page: Page, name: string, instructions: string) {
  await page.getByTestId("new-project").click();
  const dialog = page.getByTestId("project-dialog");
  await expect(dialog).toBeVisible();
  await dialog.getByTestId("project-name").fill(name);
  await dialog.getByTestId("project-instructions").fill(instructions);
  await dialog.getByTestId("project-save").click();
  // Created: the dialog stays on the new project, with its files.
  await expect(dialog.getByRole("heading", { name: "Project settings" })).toBeVisible();
  await dialog.getByTestId("project-file-input").setInputFiles(HANDBOOK);
  await expect(dialog.getByTestId("project-file")).toContainText(HANDBOOK.name);
  await expect(dialog.getByTestId("project-file")).toContainText("3 pages");
  // Indexed in the background: the label follows without reopening the dialog.
  await expect(dialog.getByTestId("project-file")).not.toContainText("being indexed");
}

/** A project with one chat in it, exported as that conversation's JSON (a chat without a message imports as nothing). */
async function exportedProjectChat(
  page: Page,
  name: string,
): Promise<{ name: string; mimeType: string; buffer: Buffer }> {
  const { project } = (await (await page.request.post("/api/projects", { data: { name } })).json()) as {
    project: { id: string };
  };
  const chat = new ChatPage(page);
  await chat.open(`/?project=${project.id}`);
  await fakeOllama.script({ when: { stream: true }, content: "Noted." });
  await chat.send(unique("Pack light"));
  await page.waitForURL(/\/c\/[^/]+$/);
  await chat.expectAnswerDone();
  const exported = await page.request.get(`/api/conversations/${chat.conversationId()}/export?format=json`);
  expect(exported.status()).toBe(200);
  return { name: "conversation.json", mimeType: "application/json", buffer: await exported.body() };
}

async function importInSettings(page: Page, file: { name: string; mimeType: string; buffer: Buffer }, label: string) {
  await page.goto("/settings");
  await page.getByLabel(label).setInputFiles(file);
  const report = page.getByTestId("import-report");
  await expect(report).toBeVisible();
  return report;
}

test("a project with a file: a new chat in it finds the file with search_files and reads a page of it", async ({
  page,
}) => {
  const chat = new ChatPage(page);
  await chat.open("/");
  const name = unique("Expedition");
  await createProjectWithFile(page, name, "Answer as the expedition's guide.");
  await screenshotVariants(page, chat, "project-dialog");
  await page.getByTestId("project-dialog").getByRole("button", { name: "Close" }).click();

  const group = page.getByTestId("project-group").filter({ hasText: name });
  await expect(group).toBeVisible();
  await group.getByTestId("project-toggle").hover();
  await group.getByTestId("project-new-chat").click();
  await page.waitForURL(/\/\?project=/);
  await expect(page.getByTestId("new-chat-project")).toContainText(name);

  await fakeOllama.script(
    { when: { hasTools: true }, toolCalls: [{ name: "search_files", arguments: { query: "glacier route" } }] },
    { when: { hasTools: true }, content: "The handbook covers it on page 3." },
    { when: { hasTools: false, stream: true }, content: "The glacier route is in part 3 of the handbook." },
  );
  await chat.send(unique("When does the glacier route close?"));
  await page.waitForURL(/\/c\/[^/]+$/);
  const search = chat.toolCard("search_files");
  await expect(search).toHaveAttribute("data-state", "ok");
  await chat.expectAnswerDone();
  await chat.openTrail();
  await search.getByTestId("tool-card-toggle").click();
  const found = search.getByTestId("tool-observation");
  await expect(found).toContainText(HANDBOOK.name);
  await expect(found).toContainText("page 3");
  const system = (await fakeOllama.chatRequests())[0]?.body.messages?.find(
    (message: { role: string }) => message.role === "system",
  );
  expect(String(system?.content)).toContain("Answer as the expedition's guide.");

  // The chat is listed under its project.
  await expect(group.getByTestId("conversation-item")).toHaveCount(1);

  // The next turn reads on from the token the search gave: page 3 of the project's file.
  const token = await tokenGiven();
  await fakeOllama.reset();
  await fakeOllama.script(
    { when: { hasTools: true }, toolCalls: [{ name: "pdf_to_text", arguments: { continue_from: token } }] },
    { when: { hasTools: true }, content: "At 14:00." },
    { when: { hasTools: false, stream: true }, content: "It closes at 14:00 every day in July." },
  );
  await chat.send(unique("Read that page"));
  const read = chat.toolCard("pdf_to_text");
  await expect(read).toHaveAttribute("data-state", "ok");
  await chat.expectAnswerDone();
  await chat.openTrail();
  await read.getByTestId("tool-card-toggle").click();
  const text = read.getByTestId("tool-observation");
  await expect(text).toContainText("The glacier route closes at 14:00 every day in July.");
  await expect(text).not.toContainText("what to pack");
  await screenshotVariants(page, chat, "project-sidebar", async () => {
    if ((page.viewportSize()?.width ?? 1280) < 768) await chat.openSidebar();
  });

  // The sidebar's search finds the words inside the project's file; the hit opens the passage at its page.
  await page.getByTestId("conversation-search").fill('"closes at 14:00"');
  const hit = page.getByTestId("file-hit").filter({ hasText: HANDBOOK.name });
  await expect(hit.first()).toContainText("page 3");
  await hit.first().click();
  const passage = page.getByTestId("file-passage");
  await expect(passage).toContainText("page 3");
  await expect(passage.getByTestId("search-highlight")).toHaveText("closes at 14:00");
  await expect(passage.getByTestId("file-passage-text")).toContainText(
    "The glacier route closes at 14:00 every day in July.",
  );
  await screenshotVariants(page, chat, "file-search-passage");
});

test("a project's preset: chosen in its settings beside the model, a new chat in it starts with the preset", async ({
  page,
}) => {
  const created = await page.request.post("/api/presets", {
    data: {
      name: unique("Glacier guide"),
      model: "qwen3:8b",
      settings: { instructions: "Give times in 24-hour form.", seed: 7 },
    },
  });
  expect(created.status()).toBe(201);
  const { preset } = (await created.json()) as { preset: { id: string; name: string } };
  try {
    const chat = new ChatPage(page);
    await chat.open("/");
    await page.getByTestId("new-project").click();
    const dialog = page.getByTestId("project-dialog");
    const name = unique("Summit");
    await dialog.getByTestId("project-name").fill(name);
    await dialog.getByTestId("project-preset").selectOption({ label: preset.name });
    // Without a model of its own, the project's new chats take the preset's.
    await expect(dialog.getByTestId("project-model")).toContainText("The preset's model (qwen3:8b)");
    await dialog.getByTestId("project-save").click();
    await expect(dialog.getByRole("heading", { name: "Project settings" })).toBeVisible();
    await screenshotVariants(page, chat, "project-dialog-preset");
    await dialog.getByRole("button", { name: "Close" }).click();

    // Kept: the settings show it again.
    const group = page.getByTestId("project-group").filter({ hasText: name });
    await group.getByTestId("project-toggle").hover();
    await group.getByTestId("project-menu-button").click();
    await page.getByTestId("project-settings").click();
    await expect(dialog.getByTestId("project-preset")).toHaveValue(preset.id);
    await dialog.getByRole("button", { name: "Cancel" }).click();

    await group.getByTestId("project-toggle").hover();
    await group.getByTestId("project-new-chat").click();
    await page.waitForURL(/\/\?project=/);
    await expect(page.getByRole("combobox", { name: "Preset" })).toHaveValue(preset.id);
    await expect(chat.modelPicker).toHaveAccessibleName("Model: qwen3:8b");
    await fakeOllama.script({ when: { stream: true }, content: "Noted: 14:00." });
    await chat.send(unique("When do we leave?"));
    await page.waitForURL(/\/c\/[^/]+$/);
    await chat.expectAnswerDone();
    const answer = (await fakeOllama.chatRequests()).find((request) =>
      String(request.body.messages?.find((m: { role: string }) => m.role === "system")?.content).includes(
        "Give times in 24-hour form.",
      ),
    );
    expect(answer?.body.model).toBe("qwen3:8b");
    expect(answer?.body.options.seed).toBe(7);
    const conversationId = new URL(page.url()).pathname.split("/").pop() ?? "";
    const detail = (await (await page.request.get(`/api/conversations/${conversationId}`)).json()) as {
      conversation: { projectId: string | null; settings: { instructions?: string } };
    };
    expect(detail.conversation.settings.instructions).toBe("Give times in 24-hour form.");
    expect(detail.conversation.projectId).not.toBeNull();
  } finally {
    await page.request.delete(`/api/presets/${preset.id}`);
  }
});

test("a chat moves into a project and out, is made private and back, a project folds, and deleting it keeps its chats unless asked", async ({
  page,
}) => {
  const chat = new ChatPage(page);
  await chat.open("/");
  await fakeOllama.script({ when: { stream: true }, content: "Noted." });
  const title = unique("Packing list");
  await chat.send(title);
  await page.waitForURL(/\/c\/[^/]+$/);
  await chat.expectAnswerDone();

  await page.getByTestId("new-project").click();
  const name = unique("Trip");
  const dialog = page.getByTestId("project-dialog");
  await dialog.getByTestId("project-name").fill(name);
  await dialog.getByTestId("project-save").click();
  await dialog.getByRole("button", { name: "Close" }).click();

  const item = page.getByTestId("conversation-item").filter({ hasText: title });
  await item.hover();
  await item.getByTestId("conversation-menu-button").click();
  await page.getByRole("menuitem", { name: `Move to “${name}”` }).click();
  const group = page.getByTestId("project-group").filter({ hasText: name });
  await expect(group.getByTestId("conversation-item")).toHaveCount(1);

  // Folding hides its chats, and stays folded after a reload.
  await group.getByTestId("project-toggle").click();
  await expect(group.getByTestId("project-toggle")).toHaveAttribute("aria-expanded", "false");
  await expect(group.getByTestId("conversation-item")).toHaveCount(0);
  await page.reload();
  await expect(group.getByTestId("project-toggle")).toHaveAttribute("aria-expanded", "false");
  await group.getByTestId("project-toggle").click();

  const moved = group.getByTestId("conversation-item");
  await moved.hover();
  await moved.getByTestId("conversation-menu-button").click();
  await page.getByRole("menuitem", { name: `Remove from “${name}”` }).click();
  await expect(group.getByTestId("conversation-item")).toHaveCount(0);
  await expect(page.getByTestId("conversation-item").filter({ hasText: title })).toHaveCount(1);

  // A chat made private (no memory read or written) says so in the list, and back.
  await item.hover();
  await item.getByTestId("conversation-menu-button").click();
  await page.getByRole("menuitem", { name: "Make private (no memory)" }).click();
  await expect(item.getByTestId("private-chat")).toBeVisible();
  await item.hover();
  await item.getByTestId("conversation-menu-button").click();
  await page.getByRole("menuitem", { name: "Use memory again" }).click();
  await expect(item.getByTestId("private-chat")).toHaveCount(0);

  // Deleted without its chats: the chat stays, outside any project.
  await item.hover();
  await item.getByTestId("conversation-menu-button").click();
  await page.getByRole("menuitem", { name: `Move to “${name}”` }).click();
  await expect(group.getByTestId("conversation-item")).toHaveCount(1);
  await group.getByTestId("project-toggle").hover();
  await group.getByTestId("project-menu-button").click();
  await page.getByTestId("project-delete").click();
  const confirm = page.getByTestId("delete-project-dialog");
  await expect(confirm.getByTestId("delete-project-chats")).not.toBeChecked();
  await confirm.getByTestId("confirm-delete-project").click();
  await expect(group).toHaveCount(0);
  await expect(page.getByTestId("conversation-item").filter({ hasText: title })).toHaveCount(1);
});

/** A project made through the API; its id. */
async function projectById(page: Page, body: { name: string; collapsed?: boolean }): Promise<string> {
  const created = await page.request.post("/api/projects", { data: { name: body.name } });
  expect(created.status()).toBe(201);
  const { project } = (await created.json()) as { project: { id: string } };
  if (body.collapsed)
    expect((await page.request.patch(`/api/projects/${project.id}`, { data: body })).status()).toBe(200);
  return project.id;
}

async function chatsIn(page: Page, projectId: string, titles: string[]): Promise<void> {
  for (const title of titles) {
    expect((await page.request.post("/api/conversations", { data: { projectId, title } })).status()).toBe(201);
  }
}

test("a project with more chats than the first page lists all of them in its group, with its own 'load more', and follows changes to them", async ({
  page,
}) => {
  const name = unique("Long trip");
  const tag = unique("Leg");
  const title = (n: number) => `${tag} n${String(n).padStart(2, "0")}`;
  const project = await projectById(page, { name });
  // Newer chats of a folded project fill the whole first page of the sidebar's list.
  const newer = await projectById(page, { name: unique("Newer trip"), collapsed: true });
  try {
    await chatsIn(
      page,
      project,
      Array.from({ length: 32 }, (_, i) => title(i + 1)),
    );
    await chatsIn(
      page,
      newer,
      Array.from({ length: 30 }, () => unique("Later leg")),
    );
    const chat = new ChatPage(page);
    await chat.open("/");
    const group = page.getByTestId("project-group").filter({ hasText: name });
    const chats = group.getByTestId("conversation-item");
    const inGroup = (n: number) => chats.filter({ hasText: title(n) });
    // Its first page, newest first, then the rest with the group's own "load more".
    await expect(chats).toHaveCount(30);
    await expect(chats.first()).toContainText(title(32));
    await expect(inGroup(1)).toHaveCount(0);
    const loadMore = group.getByTestId("project-load-more");
    await expect(loadMore).toHaveText(`Load older chats of “${name}”`);
    await screenshotVariants(page, chat, "project-group-paged", async () => {
      if ((page.viewportSize()?.width ?? 1280) < 768) await chat.openSidebar();
      await loadMore.scrollIntoViewIfNeeded();
    });
    await loadMore.click();
    await expect(chats).toHaveCount(32);
    await expect(chats.last()).toContainText(title(1));
    await expect(loadMore).toHaveCount(0);

    // Chats of its second page: renamed, archived, deleted, moved out; each change shows at once.
    const renamed = `${tag} renamed`;
    await inGroup(1).hover();
    await inGroup(1).getByTestId("rename-conversation").click();
    await page.getByTestId("rename-input").fill(renamed);
    await page.getByTestId("rename-input").press("Enter");
    await expect(chats.filter({ hasText: renamed })).toHaveCount(1);
    await expect(chats).toHaveCount(32);

    await inGroup(2).hover();
    await inGroup(2).getByTestId("conversation-menu-button").click();
    await page.getByTestId("archive-conversation").click();
    await expect(inGroup(2)).toHaveCount(0);
    await expect(chats).toHaveCount(31);

    const doomed = chats.filter({ hasText: renamed });
    await doomed.hover();
    await doomed.getByTestId("delete-conversation").click();
    await page.getByRole("dialog", { name: "Delete conversation?" }).getByTestId("confirm-delete").click();
    await expect(chats.filter({ hasText: renamed })).toHaveCount(0);
    await expect(chats).toHaveCount(30);

    await inGroup(3).hover();
    await inGroup(3).getByTestId("conversation-menu-button").click();
    await page.getByRole("menuitem", { name: `Remove from “${name}”` }).click();
    await expect(inGroup(3)).toHaveCount(0);
    await expect(chats).toHaveCount(29);
    await expect(page.getByTestId("conversation-item").filter({ hasText: title(3) })).toHaveCount(1);

    // A new chat started in it comes first in its group.
    await group.getByTestId("project-toggle").hover();
    await group.getByTestId("project-new-chat").click();
    await page.waitForURL(/\/\?project=/);
    await fakeOllama.script({ when: { stream: true }, content: "Noted." });
    await chat.send(unique("One more leg"));
    await page.waitForURL(/\/c\/[^/]+$/);
    await chat.expectAnswerDone();
    await expect(chats).toHaveCount(30);
    await expect(chats.first()).toHaveAttribute("data-conversation-id", chat.conversationId());
    await expect(chats.first()).toHaveAttribute("data-active", "true");
  } finally {
    for (const id of [project, newer]) await page.request.delete(`/api/projects/${id}?conversations=1`);
  }
});

test("the import report lists the projects it made, each opening a new chat in it", async ({ page }) => {
  const chat = new ChatPage(page);
  const name = unique("Imported trip");
  const file = await exportedProjectChat(page, name);
  const report = await importInSettings(page, file, "Import conversations");
  await expect(report).toContainText("1 conversation imported.");
  await expect(report).toContainText("1 project made:");
  await expect(report.getByTestId("import-project")).toHaveText([name]);
  await report.scrollIntoViewIfNeeded();
  await screenshotVariants(page, chat, "import-report-projects", async () => {
    await report.scrollIntoViewIfNeeded();
  });
  // The sidebar lists the copy beside the original at once.
  await expect(page.getByTestId("project-group").filter({ hasText: name })).toHaveCount(2);
  await report.getByRole("link", { name }).click();
  await page.waitForURL(/\/\?project=/);
  await expect(page.getByTestId("new-chat-project")).toContainText(name);
});

test.describe("in Japanese", () => {
  test.use({ locale: "ja-JP" });

  test("the projects UI speaks Japanese: the new project dialog, its files, the new chat in it", async ({ page }) => {
    const chat = new ChatPage(page);
    await chat.open("/");
    await page.getByRole("button", { name: "新しいプロジェクト" }).click();
    const dialog = page.getByTestId("project-dialog");
    await expect(dialog.getByRole("heading", { name: "新しいプロジェクト" })).toBeVisible();
    await expect(dialog.getByLabel("新しいチャットのプリセット")).toContainText("いつものプリセット");
    const name = unique("論文");
    await dialog.getByTestId("project-name").fill(name);
    await dialog.getByTestId("project-save").click();
    await expect(dialog.getByRole("heading", { name: "プロジェクトの設定" })).toBeVisible();
    await expect(dialog.getByRole("heading", { name: "ファイル" })).toBeVisible();
    await expect(dialog).toContainText("ファイルはまだありません。");
    await chat.screenshot("project-dialog-ja");
    await dialog.getByRole("button", { name: "閉じる" }).click();
    const group = page.getByTestId("project-group").filter({ hasText: name });
    await group.getByTestId("project-toggle").hover();
    await group.getByRole("link", { name: `「${name}」で新しいチャット` }).click();
    await expect(page.getByTestId("new-chat-project")).toContainText(`プロジェクト ${name}`);
  });

  test("the import report names the projects it made in Japanese", async ({ page }) => {
    const name = unique("輸入");
    const file = await exportedProjectChat(page, name);
    const report = await importInSettings(page, file, "会話をインポート");
    await expect(report).toContainText("1 件のプロジェクトを作成しました");
    await expect(report.getByRole("list", { name: "作成したプロジェクト" })).toContainText(name);
  });
});
