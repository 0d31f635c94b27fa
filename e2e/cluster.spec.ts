import { type Browser, type BrowserContext, expect, test } from "@playwright/test";
import { requireNginx } from "../tests/deploy/support/nginx";
import { type AppCluster, type AppInstance, startAppCluster } from "../tests/support/app-cluster";
import { ChatPage } from "./pages/chat-page";
import { startAppInstance } from "./support/app-instance";
import { fakeOllama, slowAnswer } from "./support/fake-ollama";
import { FAKE_WEB_URL } from "./support/servers";
import { unique } from "./support/unique";

/**
 * Two app instances of the production build on one PostgreSQL, behind nginx running
 * deploy/nginx/ollama-web.conf with both in its upstream (docs/cluster.md, "Several app
 * instances"). A run lives in the instance that started it (A); the other (B), and nginx in front of
 * both, must show it streaming to its end, stop it and pass it follow-ups.
 */

// Each test acts while an answer streams, made to last long enough for pages opened on a busy machine.
test.describe.configure({ timeout: 150_000 });

let cluster: AppCluster<AppInstance>;
let instanceA: string;
let instanceB: string;

test.beforeAll(async () => {
  // PostgreSQL's initdb and two `next start`s on a busy machine: more than a test's time.
  test.setTimeout(180_000);
  requireNginx();
  cluster = await startAppCluster({ instances: 2, start: (env) => startAppInstance(env) });
  [instanceA, instanceB] = cluster.instances.map((instance) => instance.base) as [string, string];
});

test.afterAll(async () => {
  await cluster?.stop();
});

test.beforeEach(async () => {
  await fakeOllama.reset();
});

let contexts: BrowserContext[] = [];

test.afterEach(async () => {
  await Promise.all(contexts.map((context) => context.close()));
  contexts = [];
});

/** A page on `base` in a context of its own (each instance is an origin of its own). */
async function chatOn(browser: Browser, base: string): Promise<ChatPage> {
  const context = await browser.newContext({ baseURL: base });
  contexts.push(context);
  return new ChatPage(await context.newPage());
}

test("a run started on one instance streams to its end on a page opened through the other and through nginx", async ({
  browser,
}) => {
  const onA = await chatOn(browser, instanceA);
  // 50 s of answer in few chunks: three pages re-render it, and on a busy machine each takes seconds to open.
  await fakeOllama.script(slowAnswer("across instances", 100, 500));
  const id = await onA.startConversation(unique("Stream across instances"));
  await expect(onA.lastAnswer).toContainText("line 2");

  const onB = await chatOn(browser, instanceB);
  await onB.open(`/c/${id}`);
  await expect(onB.lastAnswer).toHaveAttribute("data-status", "streaming");
  await onB.screenshot("cluster-following-on-b");
  const throughNginx = await chatOn(browser, cluster.url);
  await throughNginx.open(`/c/${id}`);
  await expect(throughNginx.lastAnswer).toHaveAttribute("data-status", "streaming");

  for (const chat of [onB, throughNginx, onA]) {
    await expect(chat.lastAnswer).toContainText("line 100", { timeout: 75_000 });
    await chat.expectAnswerDone();
  }
  // Each page shows the whole answer once: no line lost or repeated where replay met the live stream.
  for (const chat of [onB, throughNginx]) {
    await expect(chat.lastAnswer.getByRole("listitem")).toHaveCount(100);
    await expect(chat.lastAnswer.getByRole("listitem").nth(49)).toHaveText("line 50");
  }
  await onB.page.bringToFront();
  await onB.screenshot("cluster-done-on-b");
});

test("a run started on one instance is stopped through the other: stored as stopped, and every page says so", async ({
  browser,
}) => {
  const onA = await chatOn(browser, instanceA);
  await fakeOllama.script(slowAnswer("stopped across instances", 150, 400));
  const id = await onA.startConversation(unique("Stop me from the other instance"));
  await expect(onA.lastAnswer).toContainText("line 2");

  const onB = await chatOn(browser, instanceB);
  await onB.open(`/c/${id}`);
  await expect(onB.lastAnswer).toHaveAttribute("data-status", "streaming");
  await onB.stopButton.click();

  for (const chat of [onB, onA]) {
    await chat.expectAnswerDone("stopped");
    await expect(chat.lastAnswer.getByTestId("message-status")).toHaveText("Stopped");
  }
  await expect(onB.lastAnswer).not.toContainText("line 150");
  await onB.screenshot("cluster-stopped-on-b");
  // The model's request, made by instance A, was cut off.
  await expect
    .poll(async () => (await fakeOllama.streamedChatRequests()).map((request) => request.aborted))
    .toEqual([true]);

  // Stored: a fresh page through nginx, whichever instance serves it, shows the stopped answer.
  const throughNginx = await chatOn(browser, cluster.url);
  await throughNginx.open(`/c/${id}`);
  await throughNginx.expectAnswerDone("stopped");
  await expect(throughNginx.sendButton).toBeVisible();
});

test("a follow-up sent through the other instance reaches the run's agent and is shown where the agent took it", async ({
  browser,
}) => {
  const onA = await chatOn(browser, instanceA);
  // The agent's first tool round reads a slow page: the follow-up arrives while it works, B's page opened
  // in the meantime on a busy machine.
  await fakeOllama.script({
    when: { hasTools: true },
    toolCalls: [{ name: "scrape_url", arguments: { url: `${FAKE_WEB_URL}/slow/quokka.html?ms=30000` } }],
  });
  const id = await onA.startConversation(unique("Research quokkas on instance A"));
  await expect(onA.toolCard("scrape_url")).toHaveAttribute("data-state", "running");

  const onB = await chatOn(browser, instanceB);
  await onB.open(`/c/${id}`);
  await expect(onB.toolCard("scrape_url")).toHaveAttribute("data-state", "running");
  await onB.send("Also mention what they eat");
  await expect(onB.page.locator('[data-testid="message-user"][data-interrupt-pending="true"]')).toContainText(
    "Also mention what they eat",
  );

  // The agent on A took it into the turn, and sent it to the model with its next request.
  for (const chat of [onB, onA]) {
    await expect(chat.lastAnswer.getByTestId("taken-interrupt")).toHaveText("Also mention what they eat", {
      timeout: 45_000,
    });
  }
  await onB.screenshot("cluster-followup-taken-on-b");
  await expect
    .poll(async () =>
      (await fakeOllama.chatRequests()).some((request) =>
        request.body.messages.some(
          (m: { role: string; content?: string }) =>
            m.role === "user" &&
            m.content?.includes("[USER INTERRUPT]") &&
            m.content.includes("Also mention what they eat"),
        ),
      ),
    )
    .toBe(true);
  for (const chat of [onB, onA]) await chat.expectAnswerDone();
  await expect(onB.userMessages).toHaveCount(1);
});
