import { deflateSync } from "node:zlib";
import { expect, type Page, test } from "@playwright/test";
import { makeTextPdf } from "../tests/support/pdf-fixtures";
import { makeZip, realDocx } from "../tests/support/zip-fixtures";
import { ChatPage } from "./pages/chat-page";
import { fakeOllama } from "./support/fake-ollama";
import { unique } from "./support/unique";

test.beforeEach(async () => {
  await fakeOllama.reset();
});

const REPORT = {
  name: "quarterly-report.pdf",
  mimeType: "application/pdf",
  buffer: Buffer.from(
    makeTextPdf([
      ["Quarterly report", "Revenue grew by twelve percent."],
      ["Outlook", "Next quarter looks stable."],
    ]),
  ),
};

/** Resolves with the upload's JSON (`{id, filename, pageCount, ref, …}`) once the server answered. */
function nextUpload(page: Page) {
  return page
    .waitForResponse(
      (response) =>
        /\/api\/conversations\/[^/]+\/files$/.test(response.url()) && response.request().method() === "POST",
    )
    .then(async (response) => ({ status: response.status(), body: await response.json() }));
}

test("a PDF attached on a new chat shows its pages, the agent reads it by attachment id, and the file stays downloadable", async ({
  page,
}) => {
  const chat = new ChatPage(page);
  await chat.open("/");
  const upload = nextUpload(page);
  await chat.attach(REPORT);

  const chip = chat.attachmentChips.first();
  await expect(chip).toHaveAttribute("data-state", "ready");
  await expect(chip).toContainText("quarterly-report.pdf");
  await expect(chip).toContainText("2 pages");
  const uploaded = await upload;
  expect(uploaded.status).toBe(201);
  expect(uploaded.body).toMatchObject({ filename: "quarterly-report.pdf", pageCount: 2 });

  await fakeOllama.script(
    {
      when: { hasTools: true },
      toolCalls: [{ name: "pdf_to_text", arguments: { url_or_path: `attachment:${uploaded.body.id}` } }],
    },
    {
      when: { hasTools: false, stream: true },
      content: `Revenue grew by twelve percent (attachment:${uploaded.body.id}).`,
    },
  );
  await chat.send(unique("Summarise the report"));
  await page.waitForURL(/\/c\/[^/]+$/);
  await expect(chat.attachmentChips).toHaveCount(0);

  // The question carries its file; the tool card names the file and shows its text.
  await expect(chat.userMessages.last().getByTestId("message-attachment")).toContainText("2 pages");
  const card = chat.toolCard("pdf_to_text");
  await expect(card).toHaveAttribute("data-state", "ok");
  await expect(card).toContainText("quarterly-report.pdf");
  await chat.expectAnswerDone();
  await chat.openTrail();
  await card.getByTestId("tool-card-toggle").click();
  await expect(card.getByTestId("tool-observation")).toContainText("Revenue grew by twelve percent.");
  await expect(card.getByTestId("tool-observation")).toContainText("Next quarter looks stable.");
  await chat.expectAnswerDone();
  // The answer's reference to the file is a download link named after it, and the file is its source 1.
  await expect(chat.lastAnswer.getByRole("link", { name: "1 quarterly-report.pdf" })).toBeVisible();
  await expect(
    chat.lastAnswer.getByTestId("answer-text").getByRole("link", { name: "quarterly-report.pdf", exact: true }),
  ).toHaveAttribute("href", `/api/conversations/${chat.conversationId()}/files/${uploaded.body.id}`);

  // The model was told about the file in the system prompt.
  const [first] = await fakeOllama.chatRequests();
  expect(first?.body.messages[0].content).toContain(`attachment:${uploaded.body.id}`);

  await page.reload();
  await expect(chat.userMessages.last().getByTestId("message-attachment")).toContainText("quarterly-report.pdf");
  await chat.filesButton.click();
  const download = page.getByTestId("conversation-file").getByTestId("file-download");
  await expect(download).toHaveAttribute(
    "href",
    `/api/conversations/${chat.conversationId()}/files/${uploaded.body.id}`,
  );
  const response = await page.request.get(`/api/conversations/${chat.conversationId()}/files/${uploaded.body.id}`);
  expect(response.headers()["content-disposition"]).toContain("attachment");
  expect(Buffer.from(await response.body()).equals(REPORT.buffer)).toBe(true);
});

test("a file of no accepted type is refused on its chip, and removing the chip clears it", async ({ page }) => {
  const chat = new ChatPage(page);
  await chat.startConversation(unique("Files please"));
  await chat.expectAnswerDone();

  const zip = makeZip([{ name: "notes.txt", data: Buffer.from("just some notes\n") }]);
  await chat.attach({ name: "notes.zip", mimeType: "application/zip", buffer: zip });
  const chip = chat.attachmentChips.first();
  await expect(chip).toHaveAttribute("data-state", "error");
  await expect(page.getByTestId("attachment-error")).toContainText("This ZIP archive is not a Word document");

  await chip.getByRole("button", { name: "Remove notes.zip" }).click();
  await expect(chat.attachmentChips).toHaveCount(0);
  await expect(page.getByTestId("attachment-error")).toHaveCount(0);
});

test("files dropped onto the chat are attached like chosen ones", async ({ page }) => {
  const chat = new ChatPage(page);
  await chat.startConversation(unique("Drop zone"));
  await chat.expectAnswerDone();

  const bytes = [...REPORT.buffer];
  const transfer = await page.evaluateHandle((data) => {
    const dt = new DataTransfer();
    dt.items.add(new File([new Uint8Array(data)], "dropped.pdf", { type: "application/pdf" }));
    return dt;
  }, bytes);
  const target = chat.page.getByTestId("message-list");
  await target.dispatchEvent("dragenter", { dataTransfer: transfer });
  await expect(page.getByTestId("drop-overlay")).toBeVisible();
  await target.dispatchEvent("drop", { dataTransfer: transfer });
  await expect(page.getByTestId("drop-overlay")).toHaveCount(0);
  await expect(chat.attachmentChips.first()).toHaveAttribute("data-state", "ready");
  await expect(chat.attachmentChips.first()).toContainText("dropped.pdf");
  await expect(chat.filesButton).toHaveAccessibleName(/1$/);
});

/** A valid 4×3 RGB PNG, built here so the test needs no binary fixture. */
function tinyPng(): Buffer {
  const crcTable = Array.from({ length: 256 }, (_, n) => {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    return c >>> 0;
  });
  const crc = (bytes: Buffer) => {
    let c = 0xffffffff;
    for (const byte of bytes) c = (crcTable[(c ^ byte) & 0xff] as number) ^ (c >>> 8);
    return (c ^ 0xffffffff) >>> 0;
  };
  const chunk = (type: string, data: Buffer) => {
    const body = Buffer.concat([Buffer.from(type, "latin1"), data]);
    const length = Buffer.alloc(4);
    length.writeUInt32BE(data.length);
    const sum = Buffer.alloc(4);
    sum.writeUInt32BE(crc(body));
    return Buffer.concat([length, body, sum]);
  };
  const header = Buffer.alloc(13);
  header.writeUInt32BE(4, 0);
  header.writeUInt32BE(3, 4);
  header.set([8, 2, 0, 0, 0], 8); // 8-bit RGB
  const rows = Buffer.concat(Array.from({ length: 3 }, () => Buffer.from([0, ...Array(12).fill(200)])));
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk("IHDR", header),
    chunk("IDAT", deflateSync(rows)),
    chunk("IEND", Buffer.alloc(0)),
  ]);
}

test("an image attached in the composer reaches the vision model, shows on its question after a reload, and goes again on regenerate", async ({
  page,
}) => {
  const chat = new ChatPage(page);
  await chat.open("/");
  await chat.chooseModel("llava:7b");
  const upload = nextUpload(page);
  await chat.attach({ name: "chart.png", mimeType: "image/png", buffer: tinyPng() });
  await expect(chat.attachmentChips.first()).toHaveAttribute("data-state", "ready");
  const uploaded = await upload;
  expect(uploaded.status).toBe(201);

  const question = unique("What does this chart show");
  await chat.send(question);
  await page.waitForURL(/\/c\/[^/]+$/);
  await chat.expectAnswerDone();

  // What the server sent Ollama, not what the page remembers: the calls of the turn (the tool loop
  // and the answer, each opening with the system prompt) carry the image with the question. The
  // title call, one bare user message, needs no image.
  const imagesWithQuestion = async () =>
    (await fakeOllama.chatRequests()).flatMap((request) => {
      const messages = request.body.messages as { role: string; content: string; images?: string[] }[];
      return messages[0]?.role !== "system"
        ? []
        : messages.filter((m) => m.role === "user" && m.content.includes(question)).map((m) => m.images?.length ?? 0);
    });
  const first = await imagesWithQuestion();
  expect(first.length).toBeGreaterThan(0);
  expect(first.every((count) => count === 1)).toBe(true);

  // The file-to-question link is the server's: it survives a reload with the browser's storage cleared.
  await page.evaluate(() => localStorage.clear());
  await page.reload();
  await expect(chat.userMessages.last().getByTestId("message-attachment")).toContainText("chart.png");

  await page.getByTestId("regenerate-button").click();
  await expect.poll(async () => (await imagesWithQuestion()).length).toBeGreaterThan(first.length);
  await chat.expectAnswerDone();
  expect((await imagesWithQuestion()).every((count) => count === 1)).toBe(true);
  await expect(chat.userMessages.last().getByTestId("message-attachment")).toContainText("chart.png");
});

test("a Word document and a CSV attach with their type, the agent reads both by attachment id, and the CSV previews as its table", async ({
  page,
}) => {
  const chat = new ChatPage(page);
  await chat.open("/");
  const docxUpload = nextUpload(page);
  await chat.attach({
    name: "report.docx",
    mimeType: "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
    buffer: realDocx(),
  });
  const docx = await docxUpload;
  expect(docx.status).toBe(201);
  const csvUpload = nextUpload(page);
  await chat.attach({
    name: "sales.csv",
    mimeType: "text/csv",
    buffer: Buffer.from("city,sales\n東京,120\n大阪,95\n"),
  });
  const csv = await csvUpload;
  expect(csv.status).toBe(201);

  const docxChip = chat.attachmentChips.filter({ hasText: "report.docx" });
  await expect(docxChip).toHaveAttribute("data-state", "ready");
  await expect(docxChip).toHaveAttribute("data-kind", "word");
  await expect(docxChip).toContainText("Word");
  const csvChip = chat.attachmentChips.filter({ hasText: "sales.csv" });
  await expect(csvChip).toHaveAttribute("data-state", "ready");
  await expect(csvChip).toHaveAttribute("data-kind", "csv");
  await expect(csvChip).toContainText("CSV");

  await fakeOllama.script(
    {
      when: { hasTools: true },
      toolCalls: [
        { name: "pdf_to_text", arguments: { url_or_path: `attachment:${docx.body.id}` } },
        { name: "scrape_url", arguments: { url: `attachment:${csv.body.id}` } },
      ],
    },
    { when: { hasTools: false, stream: true }, content: "Tokyo sold 120." },
  );
  await chat.send(unique("What do the files say"));
  await page.waitForURL(/\/c\/[^/]+$/);
  await chat.expectAnswerDone();

  await chat.openTrail();
  const docxCard = chat.toolCard("pdf_to_text");
  await expect(docxCard).toHaveAttribute("data-state", "ok");
  await expect(docxCard).toContainText("report.docx");
  await docxCard.getByTestId("tool-card-toggle").click();
  await expect(docxCard.getByTestId("tool-observation")).toContainText("羅生門の下で雨やみを待っていた。");
  const csvCard = chat.toolCard("scrape_url");
  await expect(csvCard).toHaveAttribute("data-state", "ok");
  await csvCard.getByTestId("tool-card-toggle").click();
  await expect(csvCard.getByTestId("tool-observation")).toContainText("| 東京 | 120 |");

  // The question's CSV opens a preview of the table the model read; Escape closes it.
  await chat.userMessages.last().getByRole("button", { name: "Preview sales.csv" }).click();
  const preview = page.getByTestId("file-preview");
  await expect(preview).toBeVisible();
  await expect(preview.getByTestId("file-preview-text")).toContainText(
    "| city | sales |\n| --- | --- |\n| 東京 | 120 |",
  );
  await page.keyboard.press("Escape");
  await expect(preview).toBeHidden();
});
