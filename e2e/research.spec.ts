import { expect, type Page, test } from "@playwright/test";
import { ChatPage } from "./pages/chat-page";
import { fakeOllama } from "./support/fake-ollama";
import { BRIEF, gather, QUOKKA, scriptBrief, summary, write } from "./support/research-script";
import { FAKE_WEB_URL } from "./support/servers";
import { unique } from "./support/unique";

test.beforeEach(async () => {
  await fakeOllama.reset();
});

// The diet section reads slowly, so the run is seen gathering (and screenshotted) on any machine.
const SLOW_QUOKKA = `${FAKE_WEB_URL}/slow/quokka.html?ms=9000`;

/** Each section's research (a read, then its notes), its writing, and the summary on top. */
function scriptResearch() {
  return fakeOllama.script(
    ...gather("Water", QUOKKA, "They survive long without water [1]."),
    ...gather("Where they live", QUOKKA, "Rottnest Island [1]."),
    ...gather("Diet", SLOW_QUOKKA, "Grasses, leaves and stems [2]."),
    write("Water", "Quokkas can survive for long periods without water [1]."),
    write(
      "Where they live",
      "The quokka is a small marsupial that lives on Rottnest Island [1]. Quokkas live for 100 years [1].",
    ),
    write("Diet", "Quokkas are mostly nocturnal and eat grasses, leaves and stems [2]."),
    summary("Quokkas live on Rottnest Island [1] and eat grasses [2]."),
  );
}

const variants = [
  { scheme: "light", viewport: { width: 1280, height: 800 } },
  { scheme: "dark", viewport: { width: 1280, height: 800 } },
  { scheme: "light", viewport: { width: 390, height: 844 } },
] as const;

/** Screenshot artifacts (test-results/screens/) of what is on screen, in light, dark and narrow. */
async function screenshots(
  page: Page,
  chat: ChatPage,
  name: string,
  target: () => ReturnType<Page["locator"]>,
  { top = true, reopen }: { top?: boolean; reopen?: () => Promise<void> } = {},
) {
  for (const variant of variants) {
    await page.emulateMedia({ colorScheme: variant.scheme });
    await page.setViewportSize(variant.viewport);
    // A popover is placed when it opens: opened again at each size, as a reader there would.
    await reopen?.();
    // A card taller than the screen shows its beginning; a popover is only brought into view.
    if (top) await target().evaluate((element) => element.scrollIntoView({ block: "start" }));
    else await target().scrollIntoViewIfNeeded();
    await chat.screenshot(name);
  }
  await page.emulateMedia({ colorScheme: "light" });
  await page.setViewportSize(variants[0].viewport);
}

test("a research run: the outline card edited and started, its progress, the report with checked citations and a passage opened", async ({
  page,
}) => {
  test.setTimeout(120_000);
  const chat = new ChatPage(page);
  await scriptBrief();
  await chat.open("/");
  const toggle = page.getByTestId("research-toggle");
  await toggle.click();
  await expect(toggle).toHaveAttribute("aria-pressed", "true");
  await chat.send(unique("Where do quokkas live and what do they eat?"));
  await page.waitForURL(/\/c\/[^/]+$/);
  await chat.expectAnswerDone();

  // The brief is the outline card, a form, in place of its Markdown.
  const outline = chat.lastAnswer.getByTestId("outline-card");
  await expect(outline).toHaveAttribute("data-editable", "true");
  const sections = outline.getByTestId("outline-section");
  const titles = outline.getByTestId("outline-section-title");
  await expect(titles).toHaveCount(3);
  await expect(titles.nth(0)).toHaveValue("Habitat");
  await expect(outline.getByTestId("outline-goal")).toHaveValue(BRIEF.goal);
  await screenshots(page, chat, "research-outline", () => outline);

  // Renamed, one added (focused to be named), one dropped; the minimum then refuses a drop, saying why.
  await titles.nth(0).fill("Where they live");
  await outline.getByTestId("outline-add").click();
  await expect(titles).toHaveCount(4);
  await expect(titles.nth(3)).toBeFocused();
  await expect(outline.getByTestId("outline-problems")).toContainText("Section 4 needs a title.");
  await expect(outline.getByTestId("outline-start")).toBeDisabled();
  await page.keyboard.type("Water");
  await outline.getByTestId("outline-questions").nth(3).fill("How long can quokkas go without water?");
  await expect(outline.getByTestId("outline-problems")).toHaveCount(0);
  await expect(titles.nth(2)).toHaveValue("Predators");
  await sections.nth(2).getByTestId("outline-drop").click();
  await expect(titles).toHaveCount(3);
  // At the minimum Drop is marked disabled, yet still reachable, to say why it refuses.
  const drop = sections.first().getByTestId("outline-drop");
  await expect(drop).toHaveAttribute("aria-disabled", "true");
  await drop.focus();
  await page.keyboard.press("Enter");
  await expect(titles).toHaveCount(3);
  await expect(outline.getByTestId("outline-bound")).toHaveText(
    "A report needs at least 3 sections: add one before dropping another.",
  );

  // Moved up twice by the keyboard: the button keeps the focus as its section moves.
  const waterUp = sections.nth(2).getByTestId("outline-move-up");
  await waterUp.focus();
  await page.keyboard.press("Enter");
  await expect(titles.nth(1)).toHaveValue("Water");
  await expect(sections.nth(1).getByTestId("outline-move-up")).toBeFocused();
  await page.keyboard.press("Enter");
  for (const [index, title] of ["Water", "Where they live", "Diet"].entries()) {
    await expect(titles.nth(index)).toHaveValue(title);
  }
  await expect(sections.first().getByTestId("outline-move-up")).toBeFocused();
  await expect(sections.first().getByTestId("outline-move-up")).toHaveAttribute("aria-disabled", "true");

  // Start research posts the edited brief after the brief's answer, with no message.
  await scriptResearch();
  const posted = page.waitForRequest((request) => request.url().endsWith("/api/chat") && request.method() === "POST");
  await outline.getByTestId("outline-start").click();
  const body = (await posted).postDataJSON();
  expect(body).toMatchObject({ mode: "research", research: { brief: { goal: BRIEF.goal, scope: BRIEF.scope } } });
  expect(body).not.toHaveProperty("message");
  expect(typeof body.parentId).toBe("string");
  expect(body.research.brief.sections).toEqual([
    { id: "s4", title: "Water", questions: ["How long can quokkas go without water?"] },
    { id: "s1", title: "Where they live", questions: ["Where do quokkas live?"] },
    { id: "s2", title: "Diet", questions: ["What do quokkas eat?"] },
  ]);

  // The brief's card is history now: shown as it was proposed, not a form.
  await expect(chat.assistantMessages.first().getByTestId("outline-card")).toHaveAttribute("data-editable", "false");
  await expect(chat.userMessages.last()).toContainText("Research: Where quokkas live and what they eat");

  // Progress while it gathers; Stop stays offered.
  const progress = chat.lastAnswer.getByTestId("research-progress");
  const section = (id: string) => progress.locator(`[data-testid="research-section"][data-section-id="${id}"]`);
  await expect(progress).toHaveAttribute("data-phase", "gathering");
  await expect(section("s2")).toHaveAttribute("data-status", "gathering");
  await expect(section("s4")).toHaveAttribute("data-status", "gathered");
  await expect(progress.getByTestId("research-sources-read")).toHaveText("Sources read: 1 of 30");
  await expect(progress.getByTestId("research-time")).toContainText(/of 20 min/);
  await expect(chat.stopButton).toBeVisible();
  await screenshots(page, chat, "research-progress", () => progress);

  await chat.expectAnswerDone("complete", { timeout: 30_000 });
  await expect(progress.getByTestId("research-sections-done")).toHaveText("Sections written: 3 of 3");
  await expect(progress.getByTestId("research-sources-read")).toHaveText("Sources read: 2 of 30");
  for (const id of ["s4", "s1", "s2"]) await expect(section(id)).toHaveAttribute("data-status", "written");

  // The report: summary on top, the sections in the order set, references; every [n] checked and coloured.
  const answer = chat.lastAnswer.getByTestId("answer-text");
  await expect(answer.getByRole("heading", { level: 1 })).toHaveText(BRIEF.goal);
  await expect(answer.getByRole("heading", { level: 2 })).toHaveText([
    "Summary",
    "Water",
    "Where they live",
    "Diet",
    "References",
  ]);
  // The claim whose number no source holds is not found (red); the others found their passage.
  const hundred = answer.getByRole("paragraph").filter({ hasText: "100 years" }).getByTestId("citation").nth(1);
  await expect(hundred).toHaveAttribute("data-verdict", "not_found");
  const found = answer.getByTestId("citation").first();
  await expect(found).toHaveAttribute("data-verdict", /^(found|supported)$/);
  await expect(chat.lastAnswer.getByTestId("citation-summary")).toBeVisible();

  // A passage opened: the matched words marked, a link to where it is.
  await found.click();
  const popover = page.getByTestId("citation-popover");
  await expect(popover).toBeVisible();
  await expect(popover.getByTestId("citation-passage").locator("mark").first()).toBeVisible();
  await expect(popover.getByTestId("citation-open")).toHaveAttribute(
    "href",
    new RegExp(`^${QUOKKA.replace(/[.?]/g, "\\$&")}`),
  );
  const reopen = async () => {
    await page.keyboard.press("Escape");
    await expect(popover).toBeHidden();
    await found.click();
    await expect(popover).toBeVisible();
  };
  await screenshots(page, chat, "research-report", () => popover, { top: false, reopen });
  await page.keyboard.press("Escape");

  await hundred.click();
  await expect(popover).toHaveAttribute("data-verdict", "not_found");
  await expect(popover.getByTestId("citation-missing")).toContainText("100");
  await page.keyboard.press("Escape");

  // After a reload both cards are rebuilt from the stored events.
  await page.reload();
  await chat.expectAnswerDone();
  await expect(chat.assistantMessages.first().getByTestId("outline-card")).toHaveAttribute("data-editable", "false");
  await expect(chat.assistantMessages.first().getByTestId("outline-section")).toHaveCount(3);
  await expect(progress.getByTestId("research-sections-done")).toHaveText("Sections written: 3 of 3");
  await expect(hundred).toHaveAttribute("data-verdict", "not_found");
});
