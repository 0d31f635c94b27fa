import { expect, test } from "@playwright/test";
import { ChatPage } from "./pages/chat-page";
import { fakeOllama, slowAnswer } from "./support/fake-ollama";
import { FAKE_WEB_URL } from "./support/servers";
import { unique } from "./support/unique";

test.beforeEach(async () => {
  await fakeOllama.reset();
});

test("Stop ends a slow answer: the partial text stays, it is marked stopped, and Ollama's request is aborted", async ({
  page,
}) => {
  const chat = new ChatPage(page);
  await fakeOllama.script(slowAnswer("counting", 200, 100));
  await chat.startConversation(unique("Count slowly"));

  await expect(chat.lastAnswer).toHaveAttribute("data-status", "streaming");
  await expect(chat.stopButton).toBeVisible();
  await expect(chat.sendButton).toHaveCount(0);
  await expect(chat.lastAnswer).toContainText("line 3");
  await chat.stopButton.click();

  await chat.expectAnswerDone("stopped");
  await expect(chat.lastAnswer.getByTestId("message-status")).toHaveText("Stopped");
  await expect(chat.lastAnswer.locator("strong", { hasText: "Echo:" })).toBeVisible();
  await expect(chat.lastAnswer).toContainText("line 3");
  await expect(chat.lastAnswer).not.toContainText("line 200");
  await expect(chat.sendButton).toBeVisible();

  // The streamed answer's request to Ollama was cut off, not left running.
  await expect
    .poll(async () => (await fakeOllama.streamedChatRequests()).map((request) => request.aborted))
    .toEqual([true]);

  await page.reload();
  await chat.expectAnswerDone("stopped");
  await expect(chat.lastAnswer).toContainText("line 3");
});

test("a run that fails shows the error under the answer, also after a reload", async ({ page }) => {
  const chat = new ChatPage(page);
  await fakeOllama.script({ errorStatus: 500, error: "model runner has unexpectedly stopped" });
  await chat.startConversation(unique("This will break"));

  await chat.expectAnswerDone("error");
  await expect(chat.lastAnswer.getByTestId("message-status")).toHaveText("Error");
  await expect(chat.lastAnswer.getByTestId("message-error")).toContainText("model runner has unexpectedly stopped");
  await expect(chat.sendButton).toBeVisible();

  await page.reload();
  await chat.expectAnswerDone("error");
  await expect(chat.lastAnswer.getByTestId("message-error")).toContainText("model runner has unexpectedly stopped");
  // The error comes from the run and is shown once, as the notice; the stored answer holds none of it.
  await expect(chat.lastAnswer.getByText("model runner has unexpectedly stopped")).toHaveCount(1);
  await expect(chat.lastAnswer.getByTestId("answer-text")).toHaveCount(0);
});

/** A turn that reads a page, so its answer comes from synthesis; the loop's own reply is the draft. */
const researched = [
  { when: { hasTools: true }, toolCalls: [{ name: "scrape_url", arguments: { url: `${FAKE_WEB_URL}/quokka.html` } }] },
  { when: { hasTools: true }, content: "The loop's draft." },
];

test("a synthesis that fails mid-stream keeps what streamed, marked interrupted with the reason and Retry, also after a reload", async ({
  page,
}) => {
  const chat = new ChatPage(page);
  await fakeOllama.script(...researched, {
    when: { stream: true, hasTools: false },
    chunks: ["Quokkas are ", "small marsupials"],
    midStreamError: "model runner has unexpectedly stopped",
  });
  await chat.startConversation(unique("Tell me about quokkas"));

  for (const pass of ["live", "reloaded"]) {
    if (pass === "reloaded") await page.reload();
    await chat.expectAnswerDone("interrupted");
    // What streamed, then the page it read as source 1 (the API tests check the stored text exactly).
    await expect(chat.lastAnswer.getByTestId("answer-text").locator("p").first()).toHaveText(
      "Quokkas are small marsupials",
    );
    await expect(chat.lastAnswer.getByTestId("source-chip")).toHaveCount(1);
    await expect(chat.lastAnswer).not.toContainText("The loop's draft.");
    await expect(chat.lastAnswer.getByTestId("message-status")).toHaveText("Interrupted");
    await expect(chat.lastAnswer.getByTestId("message-error")).toHaveText(
      "The answer stopped before it was finished: Ollama error: model runner has unexpectedly stopped",
    );
  }
  await chat.screenshot("answer-interrupted");

  // Retry answers the turn again, in its place.
  await chat.lastAnswer.getByTestId("retry-button").click();
  await chat.expectAnswerDone();
  await expect(chat.assistantMessages).toHaveCount(1);
  await expect(chat.lastAnswer.getByTestId("message-status")).toHaveCount(0);
});

test("a synthesis that fails before any text shows the loop's draft, labelled as a draft, also after a reload", async ({
  page,
}) => {
  const chat = new ChatPage(page);
  await fakeOllama.script(...researched, {
    when: { stream: true, hasTools: false },
    errorStatus: 500,
    error: "out of memory",
  });
  await chat.startConversation(unique("Tell me about wombats"));

  for (const pass of ["live", "reloaded"]) {
    if (pass === "reloaded") await page.reload();
    await chat.expectAnswerDone("complete");
    await expect(chat.lastAnswer.getByTestId("draft-note")).toHaveText(
      "Draft from the research step — the final answer failed: Ollama error: out of memory",
    );
    await expect(chat.lastAnswer.getByTestId("answer-text")).toContainText("The loop's draft.");
    await expect(chat.lastAnswer.getByTestId("retry-button")).toBeVisible();
  }
});

test("after a reload mid-answer the page re-attaches to the run and the answer keeps streaming to its end", async ({
  page,
}) => {
  const chat = new ChatPage(page);
  await fakeOllama.script(
    {
      when: { hasTools: true },
      toolCalls: [{ name: "scrape_url", arguments: { url: `${FAKE_WEB_URL}/quokka.html` } }],
    },
    // The answer is the synthesis after the tool round (the loop's second call gets the default reply).
    { ...slowAnswer("reloaded", 80), when: { hasTools: false, stream: true } },
  );
  const question = unique("Reload me");
  await chat.startConversation(question);
  await expect(chat.lastAnswer).toContainText("line 2");

  await page.reload();
  // The run's events are replayed (the tool card, the answer so far), then it follows live.
  await expect(chat.lastAnswer).toHaveAttribute("data-status", "streaming");
  await expect(chat.toolCard("scrape_url")).toHaveAttribute("data-state", "ok");
  await expect(chat.lastAnswer).toContainText("line 2");
  await expect(chat.stopButton).toBeVisible();
  // 80 lines at 150 ms are 12 s of stream, longer than an expectation's default wait.
  await chat.expectAnswerDone("complete", { timeout: 40_000 });
  await expect(chat.lastAnswer.getByTestId("answer-text")).toContainText("line 80");
  await expect(chat.userMessages).toHaveText([question]);
  // Each line exactly once: the resumed stream neither repeats nor drops deltas.
  await expect(chat.lastAnswer.getByRole("listitem").filter({ hasText: /^line \d+$/ })).toHaveCount(80);
});

test("when the answer's stream drops, the page resumes the run after the last event it saw, without repeating text", async ({
  page,
}) => {
  // Cut POST /api/chat's stream after a dozen chunks, as a flaky network would.
  await page.addInitScript(() => {
    const original = window.fetch;
    window.fetch = async (input, init) => {
      const response = await original(input, init);
      const url = typeof input === "string" ? input : input instanceof URL ? input.href : input.url;
      if (!url.endsWith("/api/chat") || !response.body) return response;
      const reader = response.body.getReader();
      let chunks = 0;
      const cut = new ReadableStream<Uint8Array>({
        async pull(controller) {
          const { done, value } = await reader.read();
          if (done) return controller.close();
          controller.enqueue(value);
          if (++chunks >= 12) {
            void reader.cancel();
            controller.error(new TypeError("network error (simulated)"));
          }
        },
      });
      return new Response(cut, { status: response.status, headers: response.headers });
    };
  });
  const chat = new ChatPage(page);
  const resumed = page.waitForRequest((request) => /\/api\/runs\/[^/]+\/events\?after=\d/.test(request.url()));
  await chat.startConversation(`[slow] ${unique("Flaky network")}`);

  const after = new URL((await resumed).url()).searchParams.get("after");
  expect(after).not.toBe("0");
  await chat.expectAnswerDone("complete");
  await expect(chat.lastAnswer.getByRole("listitem")).toHaveCount(39);
  await expect(chat.lastAnswer.getByRole("listitem").last()).toHaveText("line 39");
});

test("after a reload mid-answer the run can be stopped, and Ollama's request is aborted", async ({ page }) => {
  const chat = new ChatPage(page);
  await fakeOllama.script(slowAnswer("reload and stop", 200, 100));
  await chat.startConversation(unique("Reload and stop"));
  await expect(chat.lastAnswer).toContainText("line 2");

  await page.reload();
  await expect(chat.lastAnswer).toHaveAttribute("data-status", "streaming");
  await expect(chat.lastAnswer).toContainText("line 3");
  await chat.stopButton.click();

  await chat.expectAnswerDone("stopped");
  await expect(chat.lastAnswer.locator("strong", { hasText: "Echo:" })).toBeVisible();
  // The streamed answer's request to Ollama was cut off, not left running.
  await expect
    .poll(async () => (await fakeOllama.streamedChatRequests()).map((request) => request.aborted))
    .toEqual([true]);
});

test("an answer keeps streaming while another conversation is open", async ({ page }) => {
  const chat = new ChatPage(page);
  const other = unique("Quiet conversation");
  await chat.startConversation(other);
  await chat.expectAnswerDone();
  // Long enough (200 lines, 150 ms apart) that a busy machine cannot end it before Stop is clicked.
  const slowQuestion = unique("Background");
  await fakeOllama.script(slowAnswer(slowQuestion, 200));
  const slowId = await chat.startConversation(slowQuestion);
  await expect(chat.lastAnswer).toContainText("line 1");

  await chat.conversation(other).getByRole("link").click();
  await expect(chat.userMessages).toHaveText([other]);
  await expect(chat.conversation(slowQuestion).getByLabel("Answering")).toBeVisible();

  await chat.conversation(slowQuestion).getByRole("link").click();
  await expect(page).toHaveURL(`/c/${slowId}`);
  await expect(chat.lastAnswer).toHaveAttribute("data-status", "streaming");
  await expect(chat.lastAnswer).toContainText("line 20");
  await chat.stopButton.click();
  await chat.expectAnswerDone("stopped");
});
