import iconv from "iconv-lite";
import { describe, expect, it } from "vitest";
import { insertFile } from "@/lib/db/files";
import { csvToMarkdown } from "@/lib/text/csv-table";
import { makeToken } from "@/lib/tools/pagination";
import { makePng } from "@/tests/support/image-fixtures";
import { followPages } from "@/tests/support/paging";
import { makeTextPdf } from "@/tests/support/pdf-fixtures";
import { setupToolEnv } from "@/tests/support/tool-env";
import { realDocx } from "@/tests/support/zip-fixtures";

const env = setupToolEnv();
const DOCX = "application/vnd.openxmlformats-officedocument.wordprocessingml.document";

function attach(bytes: Buffer | Uint8Array, filename: string, mime: string, conversationId = env.conversationId) {
  return insertFile(env.db(), {
    conversationId,
    origin: "upload",
    filename,
    mime,
    bytes: Buffer.from(bytes),
    pageCount: null,
    sourceUrl: null,
  });
}

const limit = 6000;
const csvRows = (count: number) =>
  [
    "city,sales,note",
    ...Array.from({ length: count }, (_, i) => `都市${i},${i * 7},"row ${i}, ${"x".repeat(i % 40)}"`),
  ].join("\n");

describe("attachments that are not PDFs", () => {
  it.each(["pdf_to_text", "scrape_url"])("%s reads a DOCX attachment as text: headings, lists, table", async (tool) => {
    const file = await attach(realDocx(), "report.docx", DOCX);
    const args = tool === "pdf_to_text" ? { url_or_path: `attachment:${file.id}` } : { url: `attachment:${file.id}` };
    const outcome = await env.outcome(tool, args);
    expect(outcome.ok).toBe(true);
    if (!outcome.ok) return;
    for (const part of [
      "四半期報告 Quarterly report",
      "羅生門の下で雨やみを待っていた。",
      "東京支店が最も伸びた",
      "二番目の手順",
      "大阪",
      "End of report.",
    ]) {
      expect(outcome.output).toContain(part);
    }
    expect(outcome.source).toEqual({ url: `attachment:${file.id}`, title: "report.docx" });
  });

  it("reads a CSV attachment as a Markdown table", async () => {
    const file = await attach(Buffer.from("city,sales\n東京,120\n大阪,95\n"), "sales.csv", "text/csv");
    expect(await env.run("pdf_to_text", { url_or_path: `attachment:${file.id}` })).toBe(
      "| city | sales |\n| --- | --- |\n| 東京 | 120 |\n| 大阪 | 95 |\n",
    );
  });

  it("pages a long CSV by rows, losslessly, each later page starting with the header row", async () => {
    const csv = csvRows(400);
    const file = await attach(Buffer.from(csv), "big.csv", "text/csv");
    const { head, body } = csvToMarkdown(csv);
    const pages = await followPages(
      (args) => env.outcome("pdf_to_text", args),
      { url_or_path: `attachment:${file.id}`, max_chars: 1500 },
      { limit },
    );
    expect(pages.length).toBeGreaterThan(5);
    for (const [index, page] of pages.entries()) {
      expect(page.body.startsWith(head)).toBe(true);
      expect(page.body.endsWith("|\n")).toBe(true);
      if (index > 0) expect(page.body.length).toBeLessThanOrEqual(1500);
    }
    const rest = pages.slice(1).map((page) => page.body.slice(head.length));
    expect([pages[0]?.body, ...rest].join("")).toBe(head + body);
  });

  it("pages a huge single-line CSV losslessly, not repeating a header wider than the page", async () => {
    const wide = Array.from({ length: 60_000 }, (_, i) => `v${i}`).join(",");
    const file = await attach(Buffer.from(wide), "wide.csv", "text/csv");
    const { head } = csvToMarkdown(wide);
    const pages = await followPages(
      (args) => env.outcome("scrape_url", args),
      { url: `attachment:${file.id}` },
      { limit },
    );
    expect(pages.length).toBeGreaterThan(50);
    expect(pages.map((page) => page.body).join("")).toBe(head);
  });

  it("reads JSON indented, and JSON that does not parse as it is", async () => {
    const good = await attach(Buffer.from('{"名前":"東京","id":12345678901234567890}'), "a.json", "application/json");
    expect(await env.run("scrape_url", { url: `attachment:${good.id}` })).toBe(
      '{\n  "名前": "東京",\n  "id": 12345678901234567890\n}',
    );
    const lines = await attach(Buffer.from('{"a":1}\n{"a":2}\n'), "b.json", "application/json");
    expect(await env.run("scrape_url", { url: `attachment:${lines.id}` })).toBe('{"a":1}\n{"a":2}\n');
  });

  it("reads an HTML attachment through the page extractor, and Markdown and text as they are", async () => {
    const html = await attach(
      Buffer.from(
        "<html><head><title>T</title><script>evil()</script></head><body><nav>menu</nav><p>本文です。</p></body></html>",
      ),
      "page.html",
      "text/html",
    );
    const read = await env.run("pdf_to_text", { url_or_path: `attachment:${html.id}` });
    expect(read).toContain("本文です。");
    expect(read).not.toContain("evil()");
    const markdown = await attach(Buffer.from("\ufeff# 見出し\r\n\r\n- 項目\r\n"), "notes.md", "text/markdown");
    expect(await env.run("scrape_url", { url: `attachment:${markdown.id}` })).toBe("# 見出し\n\n- 項目\n");
  });

  it("reads an undeclared Shift_JIS .txt by detecting its charset, and a declared one by its type", async () => {
    const text = "羅生門\n或日の暮方の事である。一人の下人が、羅生門の下で雨やみを待っていた。";
    const sjis = iconv.encode(text, "Shift_JIS");
    const file = await attach(sjis, "rashomon.txt", "text/plain");
    expect(await env.run("pdf_to_text", { url_or_path: `attachment:${file.id}` })).toBe(text);
    const fetched = await attach(iconv.encode("東京,120", "Shift_JIS"), "f.csv", "text/csv; charset=Shift_JIS");
    expect(await env.run("scrape_url", { url: `attachment:${fetched.id}` })).toBe("| 東京 | 120 |\n| --- | --- |\n");
  });

  it("continues a text attachment with the tool that issued the token, never another's", async () => {
    const file = await attach(Buffer.from("word ".repeat(3000)), "long.txt", "text/plain");
    const first = await env.outcome("scrape_url", { url: `attachment:${file.id}`, max_chars: 1000 });
    const token = first.ok ? (first.paging?.nextToken ?? "") : "";
    expect(token).not.toBe("");
    expect((await env.outcome("pdf_to_text", { continue_from: token })).ok).toBe(false);
    const second = await env.outcome("scrape_url", { continue_from: token, max_chars: 1000 });
    expect(second.ok && second.output.length).toBe(1000);
  });

  it("refuses another conversation's attachment, also through a forged-looking token", async () => {
    const theirs = await attach(Buffer.from("secret"), "theirs.txt", "text/plain", env.otherConversationId);
    expect(await env.run("scrape_url", { url: `attachment:${theirs.id}` })).toContain("Attachment not found");
    const token = makeToken({ tool: "pdf_to_text", attachment: theirs.id, offset: 0 }, env.services.secret);
    expect(await env.run("pdf_to_text", { continue_from: token })).toContain("Attachment not found");
  });

  it("scrape_url sends a PDF attachment to pdf_to_text, and neither reads text from an image", async () => {
    const pdf = await attach(makeTextPdf([["PDF text"]]), "doc.pdf", "application/pdf");
    expect(await env.run("scrape_url", { url: `attachment:${pdf.id}` })).toContain("read it with pdf_to_text");
    expect(await env.run("pdf_to_text", { url_or_path: `attachment:${pdf.id}` })).toBe("PDF text");
    const png = await attach(makePng({ width: 1, height: 1 }), "pic.png", "image/png");
    expect(await env.run("pdf_to_text", { url_or_path: `attachment:${png.id}` })).toContain("is an image");
  });
});
