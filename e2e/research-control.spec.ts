import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { type Browser, expect, type Locator, type Page, test } from "@playwright/test";
import mammoth from "mammoth";
import { ChatPage } from "./pages/chat-page";
import { startAppInstance } from "./support/app-instance";
import { fakeOllama } from "./support/fake-ollama";
import { BRIEF, gather, QUOKKA, scriptBrief, summary, write } from "./support/research-script";
import { unique } from "./support/unique";

/**
 * Research mode's control and exports (docs/research.md): Stop while the report is written keeps the
 * sections written so far; the report downloads as Markdown with its references and as a Word file,
 * and prints alone; a run a restart interrupted is resumed from the sections it had written.
 */

test.beforeEach(async () => {
  await fakeOllama.reset();
});

/** Predators written slowly enough to be stopped (or the server restarted) while it streams. */
const SLOW_PREDATORS = Array.from({ length: 60 }, (_, i) => `Foxes hunted quokkas in year ${i + 1}. `);

/** Starts the research of the proposed brief, Habitat and Diet written at once, Predators streaming slowly. */
async function startSlowResearch(chat: ChatPage) {
  await fakeOllama.script(
    ...gather("Habitat", QUOKKA, "Rottnest Island [1]."),
    ...gather("Diet", QUOKKA, "Grasses, leaves and stems [1]."),
    ...gather("Predators", QUOKKA, "Foxes [1]."),
    write("Habitat", "The quokka is a small marsupial that lives on Rottnest Island [1]."),
    write("Diet", "Quokkas are mostly nocturnal and eat grasses, leaves and stems [1]."),
    write("Predators", "", { chunks: SLOW_PREDATORS, chunkDelayMs: 250 }),
  );
  await chat.lastAnswer.getByTestId("outline-start").click();
  await expect(chat.lastAnswer.getByTestId("answer-text")).toContainText("Foxes hunted quokkas in year 2.", {
    timeout: 30_000,
  });
}

/** A research brief proposed on a new chat, its outline card shown. */
async function proposeBrief(chat: ChatPage, page: Page, question: string) {
  await scriptBrief();
  await chat.open("/");
  await page.getByTestId("research-toggle").click();
  await chat.send(unique(question));
  await page.waitForURL(/\/c\/[^/]+$/);
  await chat.expectAnswerDone();
}

/** A download from the footer of `answer` (the brief's answer has its own). */
async function download(page: Page, answer: Locator, testId: string): Promise<{ name: string; path: string }> {
  const started = page.waitForEvent("download");
  await answer.getByTestId(testId).click();
  const file = await started;
  return { name: file.suggestedFilename(), path: (await file.path()) ?? "" };
}

test("a research run stopped while it writes keeps the sections written; the report downloads as Markdown with its references and as Word, and prints alone", async ({
  page,
}) => {
  test.setTimeout(120_000);
  const chat = new ChatPage(page);
  await proposeBrief(chat, page, "Where do quokkas live and what do they eat?");
  await startSlowResearch(chat);
  const answer = chat.lastAnswer.getByTestId("answer-text");
  await chat.stopButton.click();
  await chat.expectAnswerDone("stopped");

  // What was written stays the answer, after a reload too: the two sections whole, the third as far as it got.
  await page.reload();
  await chat.expectAnswerDone("stopped");
  await expect(answer.getByRole("heading", { level: 2 })).toHaveText(["Habitat", "Diet", "Predators"]);
  await expect(answer).toContainText("lives on Rottnest Island");
  await expect(answer).toContainText("Foxes hunted quokkas in year 2.");
  await expect(answer).not.toContainText("year 60.");

  // Markdown: the report as written, then the source it cites with its URL and the date read.
  const markdown = await download(page, chat.lastAnswer, "answer-download-md");
  expect(markdown.name).toMatch(/\.md$/);
  const text = fs.readFileSync(markdown.path, "utf8");
  expect(text).toContain("## Habitat");
  expect(text).toContain("The quokka is a small marsupial that lives on Rottnest Island [1].");
  expect(text).toMatch(/\\\[1\\\] \[The quokka\]\(http:\/\/127\.0\.0\.1:\d+\/quokka\.html\)/);
  expect(text).toContain(`accessed ${new Date().toISOString().slice(0, 10)}`);

  // Word: a document another reader opens, with the sections and the references.
  const word = await download(page, chat.lastAnswer, "answer-download-docx");
  expect(word.name).toMatch(/\.docx$/);
  const { value: docText } = await mammoth.extractRawText({ path: word.path });
  expect(docText).toContain(BRIEF.goal);
  expect(docText).toContain("Quokkas are mostly nocturnal");
  expect(docText).toMatch(/\[1\] The quokka, accessed \d{4}-\d{2}-\d{2}/);
  const { value: html } = await mammoth.convertToHtml({ path: word.path });
  expect(html).toMatch(/<a href="http:\/\/127\.0\.0\.1:\d+\/quokka\.html">The quokka<\/a>/);

  // Print: the page on paper is the thread alone, without sidebar, composer or buttons.
  await page.emulateMedia({ media: "print" });
  await expect(page.getByTestId("composer-input")).toBeHidden();
  await expect(page.getByTestId("message-footer").first()).toBeHidden();
  await expect(answer.getByRole("heading", { level: 2 }).first()).toBeVisible();
  await chat.screenshot("research-print");
  await page.emulateMedia({ media: "screen" });
  await expect(page.getByTestId("composer-input")).toBeVisible();
});

/** A page on `base` in a browser context of its own (another port is another origin). */
async function pageOn(browser: Browser, base: string) {
  const context = await browser.newContext({ baseURL: base });
  return { context, page: await context.newPage() };
}

test("a research run a restart interrupted is resumed: the sections it wrote are kept, the rest researched, the report whole", async ({
  browser,
}) => {
  test.setTimeout(180_000);
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "ollama-web-e2e-resume-"));
  let instance = await startAppInstance({ DATA_DIR: dataDir });
  const contexts: Awaited<ReturnType<typeof pageOn>>["context"][] = [];
  try {
    const before = await pageOn(browser, instance.base);
    contexts.push(before.context);
    const chat = new ChatPage(before.page);
    await proposeBrief(chat, before.page, "Quokkas, through a restart");
    const conversation = new URL(before.page.url()).pathname;
    await startSlowResearch(chat);

    // The server restarts while Predators is being written: the answer is stored as interrupted.
    await instance.stop();
    instance = await startAppInstance({ DATA_DIR: dataDir });
    const after = await pageOn(browser, instance.base);
    contexts.push(after.context);
    const resumed = new ChatPage(after.page);
    await resumed.open(conversation);
    await resumed.expectAnswerDone("interrupted");
    const answer = resumed.lastAnswer.getByTestId("answer-text");
    await expect(answer).toContainText("lives on Rottnest Island");

    // Resumed: only Predators is researched and written again, then the summary and references over all.
    await fakeOllama.script(
      ...gather("Predators", QUOKKA, "Foxes [1]."),
      write("Predators", "Foxes and cats hunt quokkas on the mainland [1]."),
      summary("Quokkas live on Rottnest Island [1] and eat grasses [1]."),
    );
    const asked = (await fakeOllama.chatRequests()).length;
    await resumed.lastAnswer.getByTestId("resume-research-button").click();
    await resumed.expectAnswerDone("complete", { timeout: 30_000 });
    await expect(answer.getByRole("heading", { level: 2 })).toHaveText([
      "Summary",
      "Habitat",
      "Diet",
      "Predators",
      "References",
    ]);
    await expect(answer).toContainText("Quokkas are mostly nocturnal and eat grasses, leaves and stems");
    await expect(answer).toContainText("Foxes and cats hunt quokkas on the mainland");
    await expect(answer).not.toContainText("year 2.");
    const later = (await fakeOllama.chatRequests()).slice(asked).map((request) => JSON.stringify(request.body));
    expect(later.some((body) => body.includes("Section: Habitat"))).toBe(false);
    expect(later.some((body) => body.includes("Section: Predators"))).toBe(true);
    await resumed.screenshot("research-resumed");
  } finally {
    await Promise.all(contexts.map((context) => context.close()));
    await instance.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
});
