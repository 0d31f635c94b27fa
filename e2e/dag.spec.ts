import { expect, test } from "@playwright/test";
import { ChatPage } from "./pages/chat-page";
import { fakeOllama } from "./support/fake-ollama";
import { FAKE_WEB_URL } from "./support/servers";
import { unique } from "./support/unique";

test.beforeEach(async () => {
  await fakeOllama.reset();
});

test("a Plan first turn shows its plan card live, after a reload mid-run, and after the run as it was", async ({
  page,
}) => {
  const chat = new ChatPage(page);
  await fakeOllama.script({ when: { hasTools: true }, content: "Hello there." });
  await chat.startConversation(unique("Hi"));
  await chat.expectAnswerDone();

  const steps = [
    { id: "s1", task: "read the slow page", dependencies: [], tool_hint: "scrape_url" },
    { id: "s2", task: "count the words", dependencies: ["s1"] },
  ];
  await fakeOllama.script(
    { when: { lastUserIncludes: "Request:" }, toolCalls: [{ name: "make_plan", arguments: { steps } }] },
    {
      when: { lastUserIncludes: "Your step: read the slow page" },
      // Slow enough that the reload below still finds the step running on a loaded machine.
      toolCalls: [{ name: "scrape_url", arguments: { url: `${FAKE_WEB_URL}/slow/quokka.html?ms=12000` } }],
    },
    { when: { lastUserIncludes: "Your step: read the slow page" }, content: "The page is about quokkas." },
    { when: { lastUserIncludes: "Your step: count the words" }, content: "About forty words." },
    {
      when: { lastUserIncludes: "Step results:" },
      toolCalls: [
        { name: "judge_results", arguments: { achieved: true, confidence: 0.9, final_answer: null, reasoning: "ok" } },
      ],
    },
    { when: { hasTools: false, stream: true }, chunks: ["Quokkas, ", "in about ", "forty words."] },
  );
  const toggle = page.getByTestId("plan-first-toggle");
  await toggle.click();
  await expect(toggle).toHaveAttribute("aria-pressed", "true");
  await chat.send("Summarise the quokka page");

  const card = chat.lastAnswer.getByTestId("plan-card");
  const step = (id: string) => card.locator(`[data-testid="plan-step"][data-step-id="${id}"]`);
  await expect(step("s1")).toHaveAttribute("data-status", "running");
  await expect(step("s2")).toHaveAttribute("data-status", "pending");
  await expect(step("s2")).toContainText("after s1");

  await page.reload();
  await expect(step("s1")).toHaveAttribute("data-status", /running|done/);
  // The step opens on its own tool cards.
  await step("s1").locator("summary").click();
  await expect(step("s1").locator('[data-testid="tool-card"][data-tool="scrape_url"]')).toBeVisible();
  await expect(step("s2")).toHaveAttribute("data-status", "done", { timeout: 20_000 });
  await chat.expectAnswerDone();
  await expect(chat.lastAnswer).toContainText("Quokkas, in about forty words.");
  await expect(step("s1").getByTestId("plan-step-model")).toHaveText("llama3.2:latest");

  // Remembered with the conversation, and the finished turn shows the same card.
  await page.reload();
  await expect(page.getByTestId("plan-first-toggle")).toHaveAttribute("aria-pressed", "true");
  await expect(step("s1")).toHaveAttribute("data-status", "done");
  await expect(step("s2")).toHaveAttribute("data-status", "done");
  await expect(step("s2").getByTestId("plan-step-model")).toHaveText("llama3.2:latest");
});

test("a new chat with Plan first on sends its first turn as a plan, and the conversation remembers it", async ({
  page,
}) => {
  const chat = new ChatPage(page);
  await fakeOllama.script(
    {
      when: { lastUserIncludes: "Request:" },
      toolCalls: [
        {
          name: "make_plan",
          arguments: {
            steps: [
              { id: "a", task: "name a marsupial", dependencies: [] },
              { id: "b", task: "name a bird", dependencies: [] },
            ],
          },
        },
      ],
    },
    { when: { lastUserIncludes: "Your step: name a marsupial" }, content: "A quokka." },
    { when: { lastUserIncludes: "Your step: name a bird" }, content: "A kiwi." },
    {
      when: { lastUserIncludes: "Step results:" },
      toolCalls: [
        { name: "judge_results", arguments: { achieved: true, confidence: 0.9, final_answer: null, reasoning: "ok" } },
      ],
    },
    { when: { hasTools: false, stream: true }, chunks: ["A quokka ", "and a kiwi."] },
  );
  await chat.open("/");
  const toggle = page.getByTestId("plan-first-toggle");
  await expect(toggle).toHaveAttribute("aria-pressed", "false");
  await toggle.click();
  await expect(toggle).toHaveAttribute("aria-pressed", "true");
  await chat.send(unique("Name two animals"));
  await page.waitForURL(/\/c\/[^/]+$/);

  const card = chat.lastAnswer.getByTestId("plan-card");
  await expect(card.locator('[data-testid="plan-step"][data-step-id="a"]')).toBeVisible();
  await expect(card.locator('[data-testid="plan-step"][data-step-id="b"]')).toBeVisible();
  await chat.expectAnswerDone();
  await expect(chat.lastAnswer).toContainText("A quokka and a kiwi.");

  await page.reload();
  await expect(page.getByTestId("plan-first-toggle")).toHaveAttribute("aria-pressed", "true");
});
