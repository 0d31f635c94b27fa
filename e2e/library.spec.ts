import { expect, test } from "@playwright/test";
import { makeTextPdf } from "../tests/support/pdf-fixtures";
import { ChatPage } from "./pages/chat-page";
import { fakeOllama } from "./support/fake-ollama";
import { screenshotVariants, tokenGiven } from "./support/screens";
import { unique } from "./support/unique";

// The library (docs/architecture.md, "The library index"): the model finds the page of a file with
// search_files, then reads that page with pdf_to_text from the token the search gave it.

test.beforeEach(async () => {
  await fakeOllama.reset();
});

const MANUAL = {
  name: "plant-manual.pdf",
  mimeType: "application/pdf",
  buffer: Buffer.from(
    makeTextPdf([
      ["Plant manual", "Chapter 1: safety rules for every visitor."],
      ["Chapter 2: the boiler room and its valves."],
      ["Chapter 3: the cooling tower", "The cooling tower is inspected every Tuesday by the night shift."],
    ]),
  ),
};

test("the model finds a file's page with search_files and reads that page on; the Tools menu widens the search", async ({
  page,
}) => {
  const chat = new ChatPage(page);
  await chat.open("/");
  await chat.attach(MANUAL);
  await expect(chat.attachmentChips.first()).toHaveAttribute("data-state", "ready");

  await fakeOllama.script(
    { when: { hasTools: true }, toolCalls: [{ name: "search_files", arguments: { query: "cooling tower" } }] },
    { when: { hasTools: true }, content: "The manual covers it on page 3." },
    { when: { hasTools: false, stream: true }, content: "The cooling tower is covered on page 3 of the manual." },
  );
  await chat.send(unique("When is the cooling tower inspected?"));
  await page.waitForURL(/\/c\/[^/]+$/);
  const search = chat.toolCard("search_files");
  await expect(search).toHaveAttribute("data-state", "ok");
  await chat.expectAnswerDone();
  await chat.openTrail();
  await search.getByTestId("tool-card-toggle").click();
  const found = search.getByTestId("tool-observation");
  await expect(found).toContainText("plant-manual.pdf");
  await expect(found).toContainText("page 3");
  await expect(found).toContainText("The cooling tower is inspected every Tuesday");
  await screenshotVariants(page, chat, "library-search", () => search.scrollIntoViewIfNeeded());

  // The next turn reads on from the token the search gave: page 3, not the manual's start.
  const token = await tokenGiven();
  await fakeOllama.reset();
  await fakeOllama.script(
    { when: { hasTools: true }, toolCalls: [{ name: "pdf_to_text", arguments: { continue_from: token } }] },
    { when: { hasTools: true }, content: "Every Tuesday." },
    { when: { hasTools: false, stream: true }, content: "It is inspected every Tuesday by the night shift." },
  );
  await chat.send(unique("Read that page"));
  const read = chat.toolCard("pdf_to_text");
  await expect(read).toHaveAttribute("data-state", "ok");
  await chat.expectAnswerDone();
  await chat.openTrail();
  await read.getByTestId("tool-card-toggle").click();
  const text = read.getByTestId("tool-observation");
  await expect(text).toContainText("The cooling tower is inspected every Tuesday by the night shift.");
  await expect(text).not.toContainText("safety rules for every visitor");

  // "Search all my files" in the Tools menu is stored with the chat and stays on after a reload.
  await page.getByTestId("tool-groups-button").click();
  const widen = page.getByTestId("search-all-files");
  await expect(widen).toContainText("Search all my files");
  const saved = page.waitForResponse(
    (response) => /\/api\/conversations\/[^/]+$/.test(response.url()) && response.request().method() === "PATCH",
  );
  await widen.getByRole("checkbox").check();
  expect((await saved).status()).toBe(200);
  await screenshotVariants(page, chat, "library-tools-menu", () =>
    page.getByTestId("tool-groups-panel").scrollIntoViewIfNeeded(),
  );
  await page.reload();
  await page.getByTestId("tool-groups-button").click();
  await expect(page.getByTestId("search-all-files").getByRole("checkbox")).toBeChecked();
});
