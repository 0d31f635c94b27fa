import { describe, expect, it } from "vitest";
import { insertFile } from "@/lib/db/files";
import { createBuiltinRegistry } from "@/lib/tools/builtin";
import { NO_TEXT_LAYER } from "@/lib/tools/builtin/pdf-to-text";
import { makeToken } from "@/lib/tools/pagination";
import { openPdf } from "@/lib/tools/pdf/pdf-text";
import type { ToolLimits } from "@/lib/tools/services";
import { followPages } from "@/tests/support/paging";
import { makeEndlessPdf } from "@/tests/support/pdf-bombs";
import { makeCorruptPdf, makeEncryptedPdf, makeScannedPdf, makeTextPdf } from "@/tests/support/pdf-fixtures";
import { testPdfLimits } from "@/tests/support/pdf-work";
import { setupToolEnv } from "@/tests/support/tool-env";

const env = setupToolEnv();

/** A PDF of `pageCount` pages, each with a few distinct lines. */
function bookPdf(pageCount: number, linesPerPage = 8): Uint8Array {
  return makeTextPdf(
    Array.from({ length: pageCount }, (_, page) =>
      Array.from(
        { length: linesPerPage },
        (_, line) => `Page ${page + 1} line ${line + 1}: the quick brown fox jumps.`,
      ),
    ),
  );
}

async function fullText(bytes: Uint8Array): Promise<string> {
  const pdf = await openPdf(bytes, testPdfLimits());
  let text = "";
  for (let i = 0; i < pdf.pageCount; i++) text += await pdf.pageText(i);
  await pdf.close();
  return text;
}

function servePdf(path: string, bytes: Uint8Array) {
  env.web().routes.set(path, { headers: { "content-type": "application/pdf" }, body: Buffer.from(bytes) });
  return `${env.web().url}${path}`;
}

function attach(bytes: Uint8Array, conversationId = env.conversationId) {
  return insertFile(env.db(), {
    conversationId,
    origin: "upload",
    filename: "book.pdf",
    mime: "application/pdf",
    bytes: Buffer.from(bytes),
    pageCount: null,
    sourceUrl: null,
  });
}

const limit = 6000;

describe("pdf_to_text", () => {
  it("reads a web PDF, with no footer when it fits", async () => {
    const url = servePdf("/small.pdf", makeTextPdf([["Hello PDF"], ["Second page"]]));
    expect(await env.run("pdf_to_text", { url_or_path: url })).toBe("Hello PDF\n\nSecond page");
  });

  it.each([
    [500, 3],
    [2999, 30],
    [8000, 40],
  ])("pages losslessly with max_chars=%i across %i pages, beyond MAX_PDF_PAGES", async (maxChars, pageCount) => {
    const bytes = bookPdf(pageCount);
    const url = servePdf("/book.pdf", bytes);
    const pages = await followPages(
      (args) => env.outcome("pdf_to_text", args),
      { url_or_path: url, max_chars: maxChars },
      { limit },
    );
    expect(pages.map((p) => p.body).join("")).toBe(await fullText(bytes));
  });

  it("does at most MAX_PDF_PAGES pages of work per call but reads the whole document", async () => {
    const { services } = env;
    const small = setupLimits(3);
    const bytes = bookPdf(10, 2);
    const url = servePdf("/ten.pdf", bytes);
    const first = await env.run("pdf_to_text", { url_or_path: url, max_chars: 50_000 }, {}, small.registry);
    expect(first).toContain("source_pages: 1-3/10");
    expect(first).toContain("Page 3 line 2");
    expect(first).not.toContain("Page 4 line 1");
    expect(services.limits.MAX_PDF_PAGES).toBe(25);
  });

  it("adds the PDF-specific footer keys after next_token", async () => {
    const url = servePdf("/book.pdf", bookPdf(5));
    const result = await env.run("pdf_to_text", { url_or_path: url, max_chars: 300 });
    expect(result).toMatch(
      /\n\n---page-info---\nhas_more: true\nnext_token: [\w-]+\nsource_pages: 1-1\/5\ntoken_replaces_previous: true\nkeep_token_in_answer_if_stopped: true\nresume_with_continue_from_only: true$/,
    );
  });

  it("names the PDF pages of every window as data, the last one's too, which has no footer", async () => {
    const url = servePdf("/pages.pdf", bookPdf(3));
    const first = await env.outcome("pdf_to_text", { url_or_path: url, max_chars: 300 });
    expect(first).toMatchObject({ ok: true, pages: { first: 1, last: 1, total: 3 } });
    const whole = await env.outcome("pdf_to_text", { url_or_path: url, max_chars: 50_000 });
    expect(whole).toMatchObject({ ok: true, pages: { first: 1, last: 3, total: 3 } });
    expect(whole.ok && whole.paging).toBeFalsy();
  });

  it("reads an attachment of the current conversation, and resumes it from continue_from alone", async () => {
    const bytes = bookPdf(6);
    const file = await attach(bytes);
    const pages = await followPages(
      (args) => env.outcome("pdf_to_text", args),
      { url_or_path: `attachment:${file.id}`, max_chars: 700 },
      { limit },
    );
    expect(pages.length).toBeGreaterThan(2);
    expect(pages.map((p) => p.body).join("")).toBe(await fullText(bytes));
  });

  it("refuses another conversation's attachment exactly like an unknown id", async () => {
    const theirs = await attach(bookPdf(1), env.otherConversationId);
    const other = await env.run("pdf_to_text", { url_or_path: `attachment:${theirs.id}` });
    const unknown = await env.run("pdf_to_text", { url_or_path: "attachment:no-such-id" });
    expect(other).toBe(`Attachment not found: ${theirs.id}. Use an attachment:<id> listed for this conversation.`);
    expect(unknown).toBe("Attachment not found: no-such-id. Use an attachment:<id> listed for this conversation.");
  });

  it("refuses a token naming another conversation's attachment", async () => {
    const theirs = await attach(bookPdf(3), env.otherConversationId);
    const token = makeToken(
      { tool: "pdf_to_text", attachment: theirs.id, page_index: 1, page_char_offset: 0 },
      env.services.secret,
    );
    expect(await env.run("pdf_to_text", { continue_from: token })).toContain("Attachment not found");
  });

  it.each(["/etc/passwd", "./data/ollama-web.sqlite", "file:///etc/passwd", "C:\\secret.pdf", "ftp://x/a.pdf"])(
    "refuses the local path or scheme %s",
    async (path) => {
      expect(await env.run("pdf_to_text", { url_or_path: path })).toContain(
        "local paths and other schemes are refused",
      );
    },
  );

  it("a private URL is refused by the guard", async () => {
    expect(
      (await env.run("pdf_to_text", { url_or_path: "http://192.168.1.1/a.pdf" })).startsWith("Blocked URL: "),
    ).toBe(true);
  });

  it("a PDF over MAX_FETCH_MB is refused with the configured message", async () => {
    const small = setupLimits(25, { MAX_FETCH_MB: 1 });
    const big = Buffer.concat([Buffer.from(bookPdf(1)), Buffer.alloc(1_200_000, 0x20)]);
    env.web().routes.set("/big.pdf", { headers: { "content-type": "application/pdf" }, body: big });
    const result = await env.run("pdf_to_text", { url_or_path: `${env.web().url}/big.pdf` }, {}, small.registry);
    expect(result).toBe("PDF exceeds the configured size limit.");
  });

  it("says a scanned PDF has no extractable text instead of returning nothing", async () => {
    const url = servePdf("/scan.pdf", makeScannedPdf(3));
    expect(await env.run("pdf_to_text", { url_or_path: url })).toBe(NO_TEXT_LAYER);
  });

  it("a first window of blank (scanned) pages names them and reads on to the text after them, losslessly", async () => {
    const small = setupLimits(3);
    const bytes = makeTextPdf([[], [], [], [], ["The typed report starts here."], ["And ends here."]]);
    const url = servePdf("/half-scanned.pdf", bytes);
    const call = (args: Record<string, unknown>, language: "en" | "ja" = "en") =>
      env.outcome("pdf_to_text", args, { language }, small.registry);
    const pages = await followPages(call, { url_or_path: url }, { limit });
    const note = "[No text on pages 1–3 (scanned pages?); the text may go on after them.]\n";
    expect(pages[0]?.body.startsWith(note)).toBe(true);
    expect(pages[0]?.body).not.toContain(NO_TEXT_LAYER);
    expect(pages.map((page) => page.body.replace(/^\[No text on pages [^\]]*\]\n/, "")).join("")).toBe(
      await fullText(bytes),
    );
    const ja = await call({ url_or_path: url }, "ja");
    expect(ja.ok && ja.output.startsWith("[1–3 ページには文字がありません")).toBe(true);
  });

  it("answers clearly for encrypted and corrupt PDFs and for non-PDF content", async () => {
    expect(await env.run("pdf_to_text", { url_or_path: servePdf("/enc.pdf", makeEncryptedPdf()) })).toMatch(
      /^PDF is encrypted/,
    );
    expect(await env.run("pdf_to_text", { url_or_path: servePdf("/bad.pdf", makeCorruptPdf()) })).toMatch(
      /^PDF is corrupt/,
    );
    env.web().routes.set("/page.html", { body: "<p>not a pdf</p>" });
    expect(await env.run("pdf_to_text", { url_or_path: `${env.web().url}/page.html` })).toMatch(/^Not a PDF/);
  });

  it("answers with a clear observation when the PDF needs more than PDF_TIME_BUDGET_S", async () => {
    const stopped = setupLimits(25, { PDF_TIME_BUDGET_S: 1 });
    const url = servePdf("/endless.pdf", makeEndlessPdf());
    const result = await env.run("pdf_to_text", { url_or_path: url }, {}, stopped.registry);
    expect(result).toBe(
      `Reading this PDF was stopped: it needed more than 1 s of processing time; the file may be damaged or built to exhaust the reader. (${url})`,
    );
  });

  it("an empty call is Invalid URL.; a garbage token is Invalid continuation token", async () => {
    expect(await env.run("pdf_to_text", {})).toBe("Invalid URL.");
    expect((await env.run("pdf_to_text", { continue_from: "xyz" })).startsWith("Invalid continuation token: ")).toBe(
      true,
    );
  });
});

/** A second registry over the same database and web server, with other limits. */
function setupLimits(maxPdfPages: number, extra: Partial<ToolLimits> = {}) {
  const services = { ...env.services, limits: { ...env.services.limits, MAX_PDF_PAGES: maxPdfPages, ...extra } };
  return { services, registry: createBuiltinRegistry(services) };
}
