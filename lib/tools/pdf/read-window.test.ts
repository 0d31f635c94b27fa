import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { makeScannedPdf, makeTextPdf } from "@/tests/support/pdf-fixtures";
import { testPdfLimits } from "@/tests/support/pdf-work";
import { coversBlankPages, lacksTextLayer, openPdf, type PdfText, type PdfWindow, readWindow } from "./pdf-text";

const limits = testPdfLimits();

/** Deterministic filler text: page `p` has a varying number of lines of varying length. */
function lines(page: number): string[] {
  const words = ["lorem", "ipsum", "(dolor)", "sit", "amet", "back\\slash", "caf\u00e9", "x", "consectetur"];
  return Array.from({ length: (page * 7) % 13 }, (_, line) =>
    Array.from({ length: 1 + ((page + line * 5) % 9) }, (_, w) => words[(page * 3 + line + w) % words.length]).join(
      " ",
    ),
  );
}

/** An in-memory document, for text pdf.js cannot produce from a test PDF (surrogate pairs). */
function fakePdf(pages: string[]): PdfText {
  return {
    pageCount: pages.length,
    warnings: [],
    pageText: async (index) => pages[index] ?? Promise.reject(new RangeError(`no page ${index}`)),
    close: async () => undefined,
  };
}

/** Wraps a document to count `pageText` calls. */
function counting(pdf: PdfText): PdfText & { calls: number } {
  const wrapper = {
    calls: 0,
    pageCount: pdf.pageCount,
    warnings: pdf.warnings,
    pageText(index: number) {
      wrapper.calls++;
      return pdf.pageText(index);
    },
    close: () => pdf.close(),
  };
  return wrapper;
}

async function documentText(pdf: PdfText): Promise<string> {
  let text = "";
  for (let index = 0; index < pdf.pageCount; index++) text += await pdf.pageText(index);
  return text;
}

/** Follows the cursor from the start until `hasMore` is false, checking every window's limits. */
async function readAll(
  pdf: PdfText,
  maxChars: number,
  maxPages: number,
): Promise<{ text: string; windows: PdfWindow[] }> {
  const counted = counting(pdf);
  const windows: PdfWindow[] = [];
  let cursor = { pageIndex: 0, pageCharOffset: 0 };
  for (;;) {
    const before = counted.calls;
    const window = await readWindow(counted, cursor, { maxChars, maxPages });
    expect(counted.calls - before).toBeLessThanOrEqual(maxPages);
    expect(window.pagesRead).toBe(counted.calls - before);
    expect(window.text.length).toBeLessThanOrEqual(maxChars);
    windows.push(window);
    if (!window.hasMore) break;
    expect(windows.length).toBeLessThan(100_000);
    cursor = { pageIndex: window.nextPage, pageCharOffset: window.nextOffset };
  }
  return { text: windows.map((window) => window.text).join(""), windows };
}

const maxCharsValues = [1, 2, 7, 100, 4000, 1_000_000];
const maxPagesValues = [1, 3, 25];

describe("readWindow: lossless paging over a 32-page PDF", () => {
  let pdf: PdfText;
  let expected: string;

  beforeAll(async () => {
    pdf = await openPdf(makeTextPdf(Array.from({ length: 32 }, (_, page) => lines(page))), limits);
    expected = await documentText(pdf);
  });
  afterAll(() => pdf.close());

  it("has empty pages and text on the others", async () => {
    expect(pdf.pageCount).toBe(32);
    expect(await pdf.pageText(0)).toBe("\n\n");
    expect(expected.length).toBeGreaterThan(4000);
  });

  for (const maxChars of maxCharsValues) {
    for (const maxPages of maxPagesValues) {
      it(`reproduces the document exactly with maxChars ${maxChars}, maxPages ${maxPages}`, async () => {
        const { text, windows } = await readAll(pdf, maxChars, maxPages);
        expect(text).toBe(expected);
        // the document is not limited: the last window reaches the last page
        expect(windows.at(-1)).toMatchObject({ nextPage: 32, nextOffset: 0, hasMore: false, totalPages: 32 });
      });
    }
  }

  it("needs more than one call for more than maxPages pages, even when maxChars is large", async () => {
    const first = await readWindow(pdf, { pageIndex: 0, pageCharOffset: 0 }, { maxChars: 1_000_000, maxPages: 25 });
    expect(first).toMatchObject({
      nextPage: 25,
      nextOffset: 0,
      hasMore: true,
      pagesRead: 25,
      firstPage: 1,
      lastPage: 25,
    });
    const rest = await readWindow(pdf, { pageIndex: 25, pageCharOffset: 0 }, { maxChars: 1_000_000, maxPages: 25 });
    expect(rest).toMatchObject({ hasMore: false, pagesRead: 7, firstPage: 26, lastPage: 32 });
    expect(first.text + rest.text).toBe(expected);
  });
});

describe("readWindow: lossless paging over a PDF with empty pages (first, consecutive, last)", () => {
  let pdf: PdfText;
  let expected: string;

  beforeAll(async () => {
    pdf = await openPdf(makeTextPdf([[], ["only line"], [], [], ["two", "lines"], [], []]), limits);
    expected = await documentText(pdf);
  });
  afterAll(() => pdf.close());

  it("keeps a separator for every empty page but the last", () => {
    expect(expected).toBe("\n\nonly line\n\n\n\n\n\ntwo\nlines\n\n\n\n");
  });

  for (const maxChars of [1, 2, 3, 7, 100]) {
    for (const maxPages of [1, 2, 3, 25]) {
      it(`reproduces the document exactly with maxChars ${maxChars}, maxPages ${maxPages}`, async () => {
        expect((await readAll(pdf, maxChars, maxPages)).text).toBe(expected);
      });
    }
  }
});

describe("readWindow: cursor and boundaries", () => {
  const pages = ["first page\n\n", "\n\n", "second\n\n", "third page text"];
  const pdf = fakePdf(pages);
  const start = { pageIndex: 0, pageCharOffset: 0 };

  it("resumes mid-page exactly where the previous window stopped", async () => {
    const first = await readWindow(pdf, start, { maxChars: 4, maxPages: 5 });
    expect(first).toMatchObject({ text: "firs", nextPage: 0, nextOffset: 4, hasMore: true });
    const second = await readWindow(pdf, { pageIndex: 0, pageCharOffset: 4 }, { maxChars: 4, maxPages: 5 });
    expect(second).toMatchObject({ text: "t pa", startPage: 0, startOffset: 4, nextPage: 0, nextOffset: 8 });
  });

  it("ends a window after the last space or line break in its final 15 %, not inside a word", async () => {
    const words = fakePdf(["alpha beta gamma delta epsilon zeta eta theta iota kappa"]);
    const first = await readWindow(words, start, { maxChars: 40, maxPages: 5 }); // ends right after a space
    expect(first).toMatchObject({ text: "alpha beta gamma delta epsilon zeta eta ", nextOffset: 40 });
    const cut = await readWindow(words, start, { maxChars: 43, maxPages: 5 }); // "thet|a": the space at 40 is in the last 6
    expect(cut).toMatchObject({ text: "alpha beta gamma delta epsilon zeta eta ", nextOffset: 40 });
    const rest = await readWindow(words, { pageIndex: 0, pageCharOffset: 40 }, { maxChars: 100, maxPages: 5 });
    expect(cut.text + rest.text).toBe("alpha beta gamma delta epsilon zeta eta theta iota kappa");
    const long = await readWindow(fakePdf(["a supercalifragilistic"]), start, { maxChars: 12, maxPages: 5 });
    expect(long.text).toBe("a supercalif"); // no space in the final 15 %: cut where the limit falls
  });

  it("moves to the next page when a window ends exactly at a page boundary", async () => {
    const window = await readWindow(pdf, start, { maxChars: pages[0]!.length, maxPages: 5 });
    expect(window).toMatchObject({
      text: pages[0],
      nextPage: 1,
      nextOffset: 0,
      hasMore: true,
      firstPage: 1,
      lastPage: 1,
    });
  });

  it("reports the pages the text came from, 1-based", async () => {
    const window = await readWindow(pdf, { pageIndex: 0, pageCharOffset: 6 }, { maxChars: 12, maxPages: 5 });
    expect(window).toMatchObject({ text: "page\n\n\n\nseco", firstPage: 1, lastPage: 3, totalPages: 4 });
  });

  it("stops after maxPages pages even when the window has room", async () => {
    const counted = counting(pdf);
    const window = await readWindow(counted, start, { maxChars: 1000, maxPages: 2 });
    expect(counted.calls).toBe(2);
    expect(window).toMatchObject({
      text: "first page\n\n\n\n",
      nextPage: 2,
      nextOffset: 0,
      hasMore: true,
      pagesRead: 2,
    });
  });

  it("says there is nothing more when the window ends with the document", async () => {
    const window = await readWindow(pdf, { pageIndex: 3, pageCharOffset: 6 }, { maxChars: 1000, maxPages: 1 });
    expect(window).toMatchObject({ text: "page text", nextPage: 4, nextOffset: 0, hasMore: false });
  });

  it("consumes an empty last page in a full window, so hasMore is exact", async () => {
    const window = await readWindow(fakePdf(["abc\n\n", ""]), start, { maxChars: 5, maxPages: 2 });
    expect(window).toMatchObject({ text: "abc\n\n", nextPage: 2, hasMore: false, firstPage: 1, lastPage: 2 });
  });

  it("returns an empty final window for a cursor at or past the end (a stale token)", async () => {
    const window = await readWindow(pdf, { pageIndex: 9, pageCharOffset: 0 }, { maxChars: 10, maxPages: 1 });
    expect(window).toMatchObject({ text: "", hasMore: false, nextPage: 4, pagesRead: 0, firstPage: 4, lastPage: 4 });
  });

  it("continues at the next page when the offset lies beyond its page", async () => {
    const window = await readWindow(pdf, { pageIndex: 2, pageCharOffset: 500 }, { maxChars: 5, maxPages: 2 });
    expect(window).toMatchObject({ text: "third", nextPage: 3, nextOffset: 5 });
  });

  it("rejects limits below 1 and negative cursors", async () => {
    await expect(readWindow(pdf, start, { maxChars: 0, maxPages: 1 })).rejects.toThrow(RangeError);
    await expect(readWindow(pdf, start, { maxChars: 1, maxPages: 0 })).rejects.toThrow(RangeError);
    await expect(readWindow(pdf, { pageIndex: -1, pageCharOffset: 0 }, { maxChars: 1, maxPages: 1 })).rejects.toThrow(
      RangeError,
    );
  });
});

describe("readWindow: surrogate pairs", () => {
  const pages = ["a\u{1F600}b\u{1F4DA}\u{1F4DA}\n\n", "\u{20BB7}\u{20BB7}x", ""];
  const pdf = fakePdf(pages);
  const whole = pages.join("");

  for (const maxChars of [1, 2, 3, 4, 5]) {
    for (const maxPages of [1, 2, 3]) {
      it(`never splits a pair and stays lossless with maxChars ${maxChars}, maxPages ${maxPages}`, async () => {
        const windows: string[] = [];
        let cursor = { pageIndex: 0, pageCharOffset: 0 };
        for (;;) {
          const window = await readWindow(pdf, cursor, { maxChars, maxPages });
          windows.push(window.text);
          // a lone surrogate at either end would mean a split pair
          expect(window.text).not.toMatch(/^[\udc00-\udfff]|[\ud800-\udbff]$/);
          // only a window holding a single pair may exceed maxChars (by one code unit)
          if (window.text.length > maxChars) expect([...window.text]).toHaveLength(1);
          if (!window.hasMore) break;
          cursor = { pageIndex: window.nextPage, pageCharOffset: window.nextOffset };
        }
        expect(windows.join("")).toBe(whole);
      });
    }
  }
});

describe("lacksTextLayer", () => {
  it("is true for a scanned PDF read from its start", async () => {
    const pdf = await openPdf(makeScannedPdf(3), limits);
    try {
      const window = await readWindow(pdf, { pageIndex: 0, pageCharOffset: 0 }, { maxChars: 6000, maxPages: 25 });
      expect(window.text.trim()).toBe("");
      expect(window.hasMore).toBe(false);
      expect(lacksTextLayer(window)).toBe(true);
    } finally {
      await pdf.close();
    }
  });

  it("is false when there is text, or when the blank window does not start the document", async () => {
    const pdf = fakePdf(["text\n\n", "\n\n", ""]);
    const start = await readWindow(pdf, { pageIndex: 0, pageCharOffset: 0 }, { maxChars: 100, maxPages: 5 });
    expect(lacksTextLayer(start)).toBe(false);
    const later = await readWindow(pdf, { pageIndex: 1, pageCharOffset: 0 }, { maxChars: 100, maxPages: 5 });
    expect(later.text.trim()).toBe("");
    expect(lacksTextLayer(later)).toBe(false);
  });
});

describe("blank pages before text", () => {
  it("a first window of blank pages with text after them is not a document without text", async () => {
    const pdf = fakePdf(["\n\n", "\n\n", "\n\n", "typed text"]);
    const first = await readWindow(pdf, { pageIndex: 0, pageCharOffset: 0 }, { maxChars: 100, maxPages: 2 });
    expect(first.hasMore).toBe(true);
    expect(lacksTextLayer(first)).toBe(false);
    expect(coversBlankPages(first, 100)).toBe(true);
    expect([first.firstPage, first.lastPage]).toEqual([1, 2]);
  });

  it("a window cut short by its room on a blank line is not a blank page", async () => {
    const pdf = fakePdf(["line one\n\n\nline two"]);
    const window = await readWindow(pdf, { pageIndex: 0, pageCharOffset: 8 }, { maxChars: 2, maxPages: 5 });
    expect(window.text).toBe("\n\n");
    expect(coversBlankPages(window, 2)).toBe(false);
  });
});
