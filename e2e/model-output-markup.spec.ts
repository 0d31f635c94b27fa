import { readFileSync } from "node:fs";
import path from "node:path";
import { expect, type Page, test } from "@playwright/test";
import { ChatPage } from "./pages/chat-page";
import { fakeOllama } from "./support/fake-ollama";
import { unique } from "./support/unique";

/**
 * Real model outputs (tests/fixtures/model-outputs) written by the fake Ollama as the tool loop's
 * reply: whatever the markup, none of it reaches the page — thinking goes to the thinking block, a
 * call written as text runs, an unrunnable one ends in a clear message.
 */

interface Sample {
  id: string;
  raw: string;
  expect: { answer?: string };
}

function sample(file: string, id: string): Sample {
  const fixture = JSON.parse(readFileSync(path.resolve("tests/fixtures/model-outputs", file), "utf8")) as {
    samples: Sample[];
  };
  const found = fixture.samples.find((candidate) => candidate.id === id);
  if (!found) throw new Error(`no sample ${id} in ${file}`);
  return found;
}

/** Markup that must never be on the page. */
const MARKUP = [
  "<|",
  "|>",
  "[TOOL_CALLS]",
  "[ARGS]",
  "[TOOL_REQUEST]",
  "<tool_call>",
  "</tool_call>",
  "<function=",
  "<parameter=",
  "<think>",
  "</think>",
  "to=functions.",
  "assistantfinal",
];

async function expectNoMarkup(page: Page) {
  const text = (await page.locator("main").textContent()) ?? "";
  for (const marker of MARKUP) expect(text, marker).not.toContain(marker);
}

/** The tool loop's replies (tools offered), in order. */
const loopReply = (content: string) => ({ when: { hasTools: true }, content });

test.beforeEach(async () => {
  await fakeOllama.reset();
});

for (const [file, id] of [
  ["deepseek-r1.json", "deepseek-r1-empty-think"],
  ["gpt-oss.json", "harmony-stripped-final"],
] as const) {
  test(`${id}: the answer is shown without its thinking markup`, async ({ page }) => {
    const { raw, expect: intended } = sample(file, id);
    const chat = new ChatPage(page);
    await fakeOllama.script(loopReply(raw));
    await chat.startConversation(unique("Say hello"));
    await chat.expectAnswerDone();
    await expect(chat.lastAnswer.getByTestId("answer-text")).toHaveText(intended.answer ?? "");
    await expectNoMarkup(page);
  });
}

test("a Devstral [TOOL_CALLS]name[ARGS]{…} call runs as a tool call, and none of it is on the page", async ({
  page,
}) => {
  const { raw } = sample("mistral.json", "devstral-args");
  const chat = new ChatPage(page);
  await fakeOllama.script(loopReply(raw), loopReply("Nothing found."));
  await chat.startConversation(unique("Find the agent instructions"));
  await chat.expectAnswerDone();
  await expect(chat.toolCard("file_search")).toHaveAttribute("data-state", "error");
  await expectNoMarkup(page);
});

test("a Qwen3-Coder call with its opening tag missing runs, and none of its XML is on the page", async ({ page }) => {
  const { raw } = sample("qwen3-coder.json", "qwen3-coder-missing-open-tag");
  const chat = new ChatPage(page);
  await fakeOllama.script(loopReply(raw), loopReply("Done."));
  await chat.startConversation(unique("Read the file"));
  await chat.expectAnswerDone();
  await expect(chat.toolCard("Read")).toHaveAttribute("data-state", "error");
  await expectNoMarkup(page);
});

test("a model that keeps writing unrunnable calls ends in a clear message, not its markup", async ({ page }) => {
  const { raw } = sample("python-tag.json", "python-tag-not-a-call");
  const chat = new ChatPage(page);
  await fakeOllama.script(loopReply(raw), loopReply(raw));
  await chat.startConversation(unique("What is the weather?"));
  await chat.expectAnswerDone();
  await expect(chat.lastAnswer.getByTestId("answer-text")).toContainText("could not be run");
  await expectNoMarkup(page);
});
