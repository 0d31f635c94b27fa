import AxeBuilder from "@axe-core/playwright";
import { expect, type Page, test } from "@playwright/test";
import { ChatPage } from "./pages/chat-page";
import { fakeOllama } from "./support/fake-ollama";
import { APP_ACCOUNTS_URL, FAKE_WEB_URL } from "./support/servers";
import { unique } from "./support/unique";

/** Fails on any serious or critical axe violation, listing each with the elements it found. */
async function expectNoSeriousViolations(page: Page, screen: string) {
  const results = await new AxeBuilder({ page }).analyze();
  const serious = results.violations.filter((v) => v.impact === "serious" || v.impact === "critical");
  const report = serious.map(
    (v) => `${v.id} (${v.impact}): ${v.help}\n  ${v.nodes.map((n) => n.target.join(" ")).join("\n  ")}`,
  );
  expect(report, `${screen}: serious accessibility violations`).toEqual([]);
}

for (const scheme of ["light", "dark"] as const) {
  test.describe(`accessibility in ${scheme} mode`, () => {
    test.beforeEach(async ({ page }) => {
      await fakeOllama.reset();
      await page.emulateMedia({ colorScheme: scheme, reducedMotion: "reduce" });
    });

    test("the start screen, a conversation with tool cards, and settings have no serious violations", async ({
      page,
    }) => {
      const chat = new ChatPage(page);
      await chat.open("/");
      await expect(chat.modelPicker).toHaveAccessibleName(/Model: /);
      await expectNoSeriousViolations(page, "start screen");

      await fakeOllama.script({
        when: { hasTools: true },
        toolCalls: [{ name: "scrape_url", arguments: { url: `${FAKE_WEB_URL}/quokka.html` } }],
      });
      await chat.startConversation(unique("What is a quokka?"));
      await chat.expectAnswerDone();
      await expect(chat.toolCard("scrape_url")).toHaveAttribute("data-state", "ok");
      await chat.openTrail();
      await chat.toolCard("scrape_url").getByTestId("tool-card-toggle").click();
      await expectNoSeriousViolations(page, "conversation");

      await page.goto("/settings");
      await expect(page.getByTestId("ollama-check")).toBeVisible();
      await expectNoSeriousViolations(page, "settings");
    });

    test("the sign-in page has no serious violations", async ({ page }) => {
      await page.goto(`${APP_ACCOUNTS_URL}/login`);
      await expect(page.getByTestId("login-title")).toBeVisible();
      await expectNoSeriousViolations(page, "sign-in");
    });
  });
}
