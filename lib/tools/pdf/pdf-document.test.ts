import { afterEach, describe, expect, it } from "vitest";
import {
  makeCorruptPdf,
  makeEncryptedPdf,
  makeScannedPdf,
  makeTextPdf,
  makeTruncatedPdf,
} from "@/tests/support/pdf-fixtures";
import { countPdfWork, testPdfLimits } from "@/tests/support/pdf-work";
import { openPdf, PdfError, type PdfErrorKind, type PdfText, pdfWorkerCounts } from "./pdf-text";

const limits = testPdfLimits();

const opened: PdfText[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((pdf) => pdf.close()));
});

async function open(bytes: Uint8Array): Promise<PdfText> {
  const pdf = await openPdf(bytes, limits);
  opened.push(pdf);
  return pdf;
}

async function allPages(pdf: PdfText): Promise<string[]> {
  const pages: string[] = [];
  for (let index = 0; index < pdf.pageCount; index++) pages.push(await pdf.pageText(index));
  return pages;
}

async function openError(bytes: Uint8Array): Promise<PdfError> {
  const error = await openPdf(bytes, limits).then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(PdfError);
  return error as PdfError;
}

describe("openPdf / pageText", () => {
  it("extracts the text of every page, lines in order, pages joined by a blank line", async () => {
    const pdf = await open(
      makeTextPdf([
        ["Annual report (2024)", "Revenue   grew \\ fell", "  indented line"],
        ["Second page", "caf\u00e9 na\u00efve"],
        ["Last page"],
      ]),
    );
    expect(pdf.pageCount).toBe(3);
    expect(await allPages(pdf)).toEqual([
      "Annual report (2024)\nRevenue grew \\ fell\nindented line\n\n",
      "Second page\ncaf\u00e9 na\u00efve\n\n",
      "Last page",
    ]);
    expect(pdf.warnings).toEqual([]);
  });

  it("gives the same page texts for the same bytes", async () => {
    const bytes = makeTextPdf([["alpha beta", "gamma"], [], ["delta"]]);
    expect(await allPages(await open(bytes))).toEqual(await allPages(await open(bytes)));
  });

  it("keeps the caller's bytes usable (pdf.js would otherwise take over the buffer)", async () => {
    const bytes = makeTextPdf([["reusable"]]);
    await open(bytes);
    expect(await (await open(bytes)).pageText(0)).toBe("reusable");
  });

  it("parses each page once however often it is asked for", async () => {
    const work = countPdfWork();
    const pdf = await open(makeTextPdf([["one"], ["two"]]));
    await Promise.all([pdf.pageText(0), pdf.pageText(0), pdf.pageText(1)]);
    await pdf.pageText(0);
    expect(work.parses).toBe(2);
  });

  it("opens the next document in the worker process of a closed one, which stays warm", async () => {
    const first = await openPdf(makeTextPdf([["first"]]), limits);
    await first.close();
    const started = pdfWorkerCounts().started;
    const second = await open(makeTextPdf([["second"]]));
    expect(await second.pageText(0)).toBe("second");
    expect(pdfWorkerCounts().started).toBe(started);
  });

  it("skips a page whose content stream is broken, with a warning, and still reads the others", async () => {
    const pdf = await open(makeTextPdf([["before"], ["lost"], ["after"]], { brokenPages: [1] }));
    expect(await allPages(pdf)).toEqual(["before\n\n", "[Page 2 could not be read and was skipped.]\n\n", "after"]);
    expect(pdf.warnings).toHaveLength(1);
    expect(pdf.warnings[0]).toMatch(/^Page 2 could not be read and was skipped: /);
  });

  it("gives only whitespace for a scanned PDF (images and drawings, no text layer)", async () => {
    const pages = await allPages(await open(makeScannedPdf(4)));
    expect(pages).toHaveLength(4);
    expect(pages.join("").trim()).toBe("");
  });

  it("rejects a page index outside the document", async () => {
    const pdf = await open(makeTextPdf([["only"]]));
    await expect(pdf.pageText(1)).rejects.toThrow(RangeError);
    await expect(pdf.pageText(-1)).rejects.toThrow(RangeError);
  });

  const failures: [string, () => Uint8Array, PdfErrorKind, RegExp][] = [
    ["a password-protected PDF", () => makeEncryptedPdf(), "encrypted", /^PDF is encrypted \(password protected\)\.$/],
    ["garbage after a PDF header", makeCorruptPdf, "corrupt", /^PDF is corrupt or unreadable: .+/],
    ["a truncated PDF", makeTruncatedPdf, "corrupt", /^PDF is corrupt or unreadable: .+/],
    [
      "an HTML page",
      () => new TextEncoder().encode("<!doctype html><p>%PDF-</p>".padStart(1100)),
      "not_pdf",
      /^Not a PDF file\.$/,
    ],
    ["an empty file", () => new Uint8Array(), "not_pdf", /^Not a PDF file\.$/],
  ];
  it.each(failures)("refuses %s with PdfError %s", async (_name, bytes, kind, message) => {
    const error = await openError(bytes());
    expect(error.kind).toBe(kind);
    expect(error.message).toMatch(message);
  });

  it("the encrypted fixture is a real encrypted PDF (it opens with its password)", async () => {
    const pdfjs = await import("pdfjs-dist/legacy/build/pdf.mjs");
    const doc = await pdfjs.getDocument({ data: makeEncryptedPdf("user"), password: "user", verbosity: 0 }).promise;
    try {
      const content = await (await doc.getPage(1)).getTextContent();
      expect(content.items.map((item) => ("str" in item ? item.str : "")).join("")).toBe("Secret text");
    } finally {
      await doc.destroy();
    }
  });
});

describe("long documents", () => {
  const book = makeTextPdf(
    Array.from({ length: 7 }, (_, page) => [`Page ${page + 1} opens.`, page === 2 ? "a hyphen-" : "plain", "ated end"]),
  );

  it("parses a document of PDF_TWO_WORKERS_MIN_PAGES or more with two workers, page texts as with one", async () => {
    const oneWorker = await allPages(await open(book));
    const before = pdfWorkerCounts().documents;
    const pdf = await openPdf(book, testPdfLimits({ PDF_TWO_WORKERS_MIN_PAGES: "7" }));
    opened.push(pdf);
    expect(await allPages(pdf)).toEqual(oneWorker);
    expect(pdfWorkerCounts().documents - before).toBe(2);
  });

  it("starts no second worker for a shorter document, nor before an odd page is read", async () => {
    const before = pdfWorkerCounts().documents;
    const short = await openPdf(book, testPdfLimits({ PDF_TWO_WORKERS_MIN_PAGES: "8" }));
    opened.push(short);
    await allPages(short);
    const counted = await openPdf(book, testPdfLimits({ PDF_TWO_WORKERS_MIN_PAGES: "2" }));
    await counted.close(); // an upload's page count check: opened and closed
    expect(pdfWorkerCounts().documents - before).toBe(2);
  });
});
