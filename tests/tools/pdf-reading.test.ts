import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { openPdf } from "@/lib/tools/pdf/pdf-text";
import { makeTextPdf } from "@/tests/support/pdf-fixtures";
import { testPdfLimits } from "@/tests/support/pdf-work";

/** PDFs printed by Chromium, groff and Ghostscript (scripts/fixtures/make-pdfs.mjs), with the text they were printed from. */
const FIXTURES = path.join(__dirname, "..", "fixtures", "pdf");
const fixture = (name: string) => new Uint8Array(fs.readFileSync(path.join(FIXTURES, `${name}.pdf`)));
const sourceLines = (name: string) =>
  fs
    .readFileSync(path.join(FIXTURES, `${name}.txt`), "utf8")
    .trimEnd()
    .split("\n");

async function pagesOf(bytes: Uint8Array, order?: number[]): Promise<string[]> {
  const pdf = await openPdf(bytes, testPdfLimits());
  try {
    const pages: string[] = new Array(pdf.pageCount);
    for (const index of order ?? pages.keys()) pages[index] = await pdf.pageText(index);
    return pages;
  } finally {
    await pdf.close();
  }
}
const textOf = async (bytes: Uint8Array) => (await pagesOf(bytes)).join("");
const withoutSpace = (text: string) => text.replace(/\s/g, "").normalize("NFKC");

describe("PDF reading fidelity (real producers)", () => {
  it("normalises Kangxi radicals and CJK compatibility forms, so 羅生門 is found (Chrome, horizontal Japanese)", async () => {
    const text = await textOf(fixture("ja-horizontal"));
    expect(text).toContain("羅生門");
    expect(text).not.toMatch(/[\u2E80-\u2FDF\uF900-\uFAFF]/u);
    expect(withoutSpace(text)).toBe(withoutSpace(sourceLines("ja-horizontal").join("")));
  });

  it("maps the CJK Radicals Supplement code points Chrome writes for 長 and 黄 (⻑, ⻩) to the ideographs", async () => {
    const text = await textOf(fixture("ja-radicals"));
    expect(text).not.toMatch(/[\u2E80-\u2EFF]/u);
    expect(text.split("\n\n")).toEqual(sourceLines("ja-radicals"));
  });

  it("joins vertical writing into one line per column, columns right to left, vertical forms normalised", async () => {
    const text = await textOf(fixture("ja-vertical"));
    const source = sourceLines("ja-vertical");
    expect(withoutSpace(text)).toBe(withoutSpace(source.join("")));
    expect(text).toContain(source[1]); // the first paragraph fits one column: one line, as printed
    expect(text.split("\n").length).toBeLessThan(20);
    expect(text).toContain("（下人は、");
    expect(text).not.toMatch(/[\uFE10-\uFE1F\uFE30-\uFE4F]/u);
  });

  it("gives right-to-left lines (Arabic, Hebrew) in logical order", async () => {
    expect((await textOf(fixture("rtl"))).split("\n")).toEqual(sourceLines("rtl"));
  });

  it("places blocks by position when the content stream jumps back up within a column (Chrome code and table)", async () => {
    const text = await textOf(fixture("chrome-code"));
    const at = (needle: string) => text.indexOf(needle);
    expect(at("The function below")).toBeLessThan(at("function countWords"));
    expect(at("}")).toBeLessThan(at("Input Words"));
    expect(at("alpha beta gamma 3")).toBeLessThan(at("After the listing"));
    expect(text.split("\n")).toHaveLength(sourceLines("chrome-code").length);
  });

  it.each([
    ["groff", "groff-code"],
    ["Ghostscript", "ghostscript-code"],
  ])(
    "keeps the indentation of a code listing typeset by %s, which moves lines instead of writing spaces",
    async (_producer, name) => {
      expect((await textOf(fixture(name))).split("\n")).toEqual(sourceLines(name));
    },
  );

  it("keeps the indentation Chrome writes as spaces in a code listing", async () => {
    const text = await textOf(fixture("chrome-code"));
    expect(text).toContain("function countWords(line) {\n  return line.split(/\\s+/).filter(Boolean).length;\n}");
  });

  it("keeps a title over two columns first, then the left column, then the right one", async () => {
    const text = await textOf(fixture("two-column"));
    expect(text.startsWith("A title that spans both columns\n")).toBe(true);
    const order = [...text.matchAll(/Sentence (\d+) /g)].map((match) => Number(match[1]));
    expect(order).toEqual(Array.from({ length: 30 }, (_, i) => i + 1));
  });

  it("joins a hyphenated line end only when the joined word occurs elsewhere (Chrome, groff)", async () => {
    const text = await textOf(fixture("hyphenated"));
    expect(text).toContain("writer makes confusing\nlines");
    expect(text).toContain("The well-\nknown remedy");
    const man = await textOf(fixture("man-page"));
    expect(man).toContain("documents in reading\norder"); // "reading" is written whole further down
    expect(man).toContain("and in-\ncomprehensibility");
    expect(man).toContain("the type-\nsetter");
  });

  it("joins a hyphen with the words of the neighbouring pages, whichever page is read first", async () => {
    const bytes = makeTextPdf([
      ["An unusual word: overlong."],
      ["A line that is over-", "long and broken."],
      ["Next."],
    ]);
    expect((await pagesOf(bytes))[1]).toBe("A line that is overlong\nand broken.\n\n");
    expect((await pagesOf(bytes, [1, 0, 2]))[1]).toBe("A line that is overlong\nand broken.\n\n");
    const far = makeTextPdf([["overlong"], ["filler"], ["A line that is over-", "long and broken."]]);
    expect((await pagesOf(far))[2]).toBe("A line that is over-\nlong and broken.");
  });

  it("never joins a hyphen across pages, so every page keeps its own text", async () => {
    const bytes = makeTextPdf([["Words overlong and", "over-"], ["long again."]]);
    expect(await pagesOf(bytes)).toEqual(["Words overlong and\nover-\n\n", "long again."]);
  });
});
