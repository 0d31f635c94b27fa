import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { extractHtmlText } from "@/lib/tools/html-text";
import { openPdf } from "@/lib/tools/pdf/pdf-text";
import { followPages } from "@/tests/support/paging";
import { testPdfLimits } from "@/tests/support/pdf-work";
import { setupToolEnv } from "@/tests/support/tool-env";

/**
 * Dense documents no one here wrote (tests/fixtures/dense/README.md): man pages printed by groff and
 * by Ghostscript, a pdfTeX manual and HTML manuals shipped by Debian, with wide tables and long
 * unbroken lines. Every one is read from the first page to the last, and the bodies concatenated
 * are the whole extracted text, for max_chars at the result limit and well below it.
 */

const env = setupToolEnv({ PDF_TIME_BUDGET_S: "60" });
const DENSE = path.join(__dirname, "..", "fixtures", "dense");
const bytesOf = (name: string) => fs.readFileSync(path.join(DENSE, name));
const limit = 6000;

async function pdfText(bytes: Buffer): Promise<string> {
  const pdf = await openPdf(new Uint8Array(bytes), testPdfLimits({ PDF_TIME_BUDGET_S: "60" }));
  try {
    let text = "";
    for (let i = 0; i < pdf.pageCount; i++) text += await pdf.pageText(i);
    return text;
  } finally {
    await pdf.close();
  }
}

describe("lossless paging never stops mid-document (dense real documents)", () => {
  it.each([
    ["jq-groff.pdf", 6000],
    ["jq-groff.pdf", 700],
    ["curl-ghostscript.pdf", 6000],
    ["curl-ghostscript.pdf", 1500],
    ["libtasn1-pdftex.pdf", 6000],
    ["libtasn1-pdftex.pdf", 2500],
  ])(
    "pdf_to_text reads %s to its last page with max_chars=%i, every body of the whole text in order",
    { timeout: 120_000 },
    async (name, maxChars) => {
      const bytes = bytesOf(name);
      env.web().routes.set(`/${name}`, { headers: { "content-type": "application/pdf" }, body: bytes });
      const pages = await followPages(
        (args) => env.outcome("pdf_to_text", args),
        { url_or_path: `${env.web().url}/${name}`, max_chars: maxChars },
        { limit },
      );
      expect(pages.length).toBeGreaterThan(1);
      expect(pages.map((page) => page.body).join("")).toBe(await pdfText(bytes));
    },
  );

  it.each([
    ["libxslt-xsltutils.html", 6000],
    ["libxslt-xsltutils.html", 300],
    ["valgrind-writing-tools.html", 6000],
    ["valgrind-writing-tools.html", 1000],
    ["ninja-manual.html", 6000],
    ["ninja-manual.html", 2000],
  ])(
    "scrape_url reads %s (wide tables, long lines) to its end with max_chars=%i, losslessly",
    { timeout: 60_000 },
    async (name, maxChars) => {
      const html = bytesOf(name);
      env.web().routes.set(`/${name}`, { headers: { "content-type": "text/html; charset=utf-8" }, body: html });
      const pages = await followPages(
        (args) => env.outcome("scrape_url", args),
        { url: `${env.web().url}/${name}`, max_chars: maxChars },
        { limit },
      );
      expect(pages.length).toBeGreaterThan(1);
      expect(pages.map((page) => page.body).join("")).toBe(extractHtmlText(html.toString("utf8")).text);
    },
  );
});
