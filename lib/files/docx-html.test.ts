import { describe, expect, it } from "vitest";
import { documentXml, docxWith, makeZip, realDocx } from "@/tests/support/zip-fixtures";
import { DocxError, type DocxLimits, docxToHtml } from "./docx-html";
import { inflatedSize, isDocx, MAX_ENTRIES, zipEntries } from "./zip-entries";

const MB = 1024 * 1024;
const LIMITS: DocxLimits = { maxInflatedBytes: 4 * MB, timeMs: 10_000, memoryMb: 128, concurrency: 2 };

async function failure(bytes: Buffer, limits: DocxLimits = LIMITS): Promise<DocxError> {
  const error = await docxToHtml(bytes, limits).catch((caught: unknown) => caught);
  expect(error).toBeInstanceOf(DocxError);
  return error as DocxError;
}

describe("DOCX recognition", () => {
  it("knows a DOCX by word/document.xml inside the ZIP, and no other ZIP", () => {
    expect(isDocx(realDocx())).toBe(true);
    expect(isDocx(makeZip([{ name: "notes.txt", data: Buffer.from("hello") }]))).toBe(false);
    expect(isDocx(makeZip([{ name: "word/document.xml", data: Buffer.from("<x/>") }]))).toBe(false);
    expect(isDocx(Buffer.from("PK\x03\x04 not really a zip"))).toBe(false);
  });

  it("reads a ZIP's directory only within its bounds (a cut or lying archive is not one)", () => {
    const zip = realDocx();
    for (const cut of [30, zip.length / 2, zip.length - 10])
      expect(zipEntries(zip.subarray(0, cut), MAX_ENTRIES)).toBeNull();
    const lying = Buffer.from(zip);
    lying.writeUInt32LE(zip.length * 2, zip.length - 6); // the directory's offset, past the end
    expect(zipEntries(lying, MAX_ENTRIES)).toBeNull();
  });
});

describe("ZIP bombs", () => {
  it("measures what entries really inflate to, not what the directory claims", async () => {
    const bomb = docxWith(Buffer.alloc(16 * MB, 0x20), 100);
    const entries = zipEntries(bomb, MAX_ENTRIES);
    expect(entries?.find((entry) => entry.name === "word/document.xml")?.size).toBe(100);
    expect(await inflatedSize(bomb, entries ?? [], 4 * MB)).toBeNull();
    expect(await inflatedSize(bomb, entries ?? [], 32 * MB)).toBeGreaterThan(16 * MB);
  });

  it("refuses a DOCX that inflates past DOCX_MAX_INFLATED_MB before converting it", async () => {
    const bomb = docxWith(Buffer.alloc(16 * MB, 0x20));
    expect(bomb.length).toBeLessThan(64 * 1024);
    const error = await failure(bomb);
    expect(error.reason).toBe("too_large");
    expect(error.message).toContain("unpacks to more than the 4 MB limit");
  });

  it("refuses a DOCX whose directory understates its sizes just the same", async () => {
    expect((await failure(docxWith(Buffer.alloc(16 * MB, 0x20), 10))).reason).toBe("too_large");
  });
});

describe("DOCX conversion", () => {
  it("converts a python-docx document to HTML with its headings, lists and table", async () => {
    const html = await docxToHtml(realDocx(), LIMITS);
    expect(html).toContain("<h1>四半期報告 Quarterly report</h1>");
    expect(html).toContain("羅生門の下で雨やみを待っていた。");
    expect(html).toMatch(/<ul><li>東京支店が最も伸びた<\/li>/);
    expect(html).toMatch(/<ol><li>first step<\/li><li>二番目の手順<\/li><\/ol>/);
    expect(html).toContain("<table>");
  });

  it("stops a conversion that takes longer than DOCX_TIME_BUDGET_S", async () => {
    const error = await failure(realDocx(), { ...LIMITS, timeMs: 1 });
    expect(error.reason).toBe("timeout");
  });

  it("stops a conversion that needs more than DOCX_WORKER_MEMORY_MB of heap", async () => {
    const paragraphs = Array.from({ length: 60_000 }, (_, i) => `paragraph ${i} ${"text ".repeat(10)}`);
    const big = docxWith(documentXml(paragraphs));
    const error = await failure(big, { ...LIMITS, maxInflatedBytes: 64 * MB, memoryMb: 16, timeMs: 60_000 });
    expect(error.reason).toBe("too_large");
  });

  it("answers a damaged DOCX with an error value, and the next conversion still works", async () => {
    const damaged = docxWith(Buffer.from("<w:document>not closed"));
    expect((await failure(damaged)).reason).toBe("unreadable");
    expect(await docxToHtml(docxWith(documentXml(["still fine"])), LIMITS)).toContain("still fine");
  });
});
