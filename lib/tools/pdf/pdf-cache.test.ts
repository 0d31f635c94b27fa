import v8 from "node:v8";
import vm from "node:vm";
import { beforeEach, describe, expect, it } from "vitest";
import { makeCorruptPdf, makeTextPdf } from "@/tests/support/pdf-fixtures";
import { countPdfWork, testPdfLimits } from "@/tests/support/pdf-work";
import { openPdfCached, PdfDocumentCache, PdfError, readWindow } from "./pdf-text";

const limits = testPdfLimits();
let work: ReturnType<typeof countPdfWork>;
beforeEach(() => {
  work = countPdfWork();
});

/** A stored file's loader that counts how often the file is read. */
function storedFile(pages: string[][]) {
  const bytes = makeTextPdf(pages);
  const loader = Object.assign(
    () => {
      loader.reads++;
      return bytes;
    },
    { reads: 0 },
  );
  return loader;
}

const start = { pageIndex: 0, pageCharOffset: 0 };

describe("PdfDocumentCache", () => {
  it("reuses the open document for the same key: a continuation does not re-read the file or re-parse pages", async () => {
    const cache = new PdfDocumentCache(8);
    const file = storedFile([["page one text"], ["page two text"], ["page three"]]);

    const first = await cache.open("sha-a", file, limits);
    const window = await readWindow(first, start, { maxChars: 20, maxPages: 25 });
    await first.close();
    expect(work.parses).toBe(3); // pages one and two, and three for the hyphens at the end of two

    const again = await cache.open("sha-a", file, limits);
    const cursor = { pageIndex: window.nextPage, pageCharOffset: window.nextOffset };
    const next = await readWindow(again, cursor, { maxChars: 100, maxPages: 25 });
    await again.close();
    expect(window.text + next.text).toBe("page one text\n\npage two text\n\npage three");
    expect(file.reads).toBe(1);
    expect(work.parses).toBe(3); // no page was parsed again
    expect(work.closes).toBe(0); // releasing a lease keeps the document cached
    await cache.clear();
    expect(work.closes).toBe(1);
  });

  it("shares one document between concurrent opens of the same key", async () => {
    const cache = new PdfDocumentCache(8);
    const file = storedFile([["shared"]]);
    const [a, b] = await Promise.all([cache.open("k", file, limits), cache.open("k", file, limits)]);
    await Promise.all([a.pageText(0), b.pageText(0)]);
    expect(file.reads).toBe(1);
    expect(work.parses).toBe(1);
    await Promise.all([a.close(), b.close()]);
    await cache.clear();
  });

  it("evicts and closes the least recently used document beyond its capacity", async () => {
    const cache = new PdfDocumentCache(2);
    const files = { a: storedFile([["a"]]), b: storedFile([["b"]]), c: storedFile([["c"]]) };
    for (const key of ["a", "b", "a", "c"] as const) {
      const pdf = await cache.open(key, files[key], limits);
      await pdf.pageText(0);
      await pdf.close();
    }
    expect(cache.size).toBe(2);
    await waitForCloses(1);
    await (await cache.open("a", files.a, limits)).close(); // still cached: used after b
    await (await cache.open("b", files.b, limits)).close(); // was evicted: read again
    expect([files.a.reads, files.b.reads, files.c.reads]).toEqual([1, 2, 1]);
    await cache.clear();
    await waitForCloses(4); // b, then c (evicted in the background), a and b again
  });

  it("a lowered capacity evicts the least recently used beyond it at once; the others stay cached", async () => {
    const cache = new PdfDocumentCache(3);
    const files = { a: storedFile([["a"]]), b: storedFile([["b"]]), c: storedFile([["c"]]) };
    for (const key of ["a", "b", "c", "a"] as const) await (await cache.open(key, files[key], limits)).close();
    cache.resize(2);
    expect(cache.size).toBe(2);
    await waitForCloses(1);
    await (await cache.open("a", files.a, limits)).close(); // used last: kept
    await (await cache.open("c", files.c, limits)).close(); // kept
    await (await cache.open("b", files.b, limits)).close(); // the least recently used: evicted, read again
    expect([files.a.reads, files.b.reads, files.c.reads]).toEqual([1, 2, 1]);
    await cache.clear();
  });

  it("closes an evicted document only after its last lease is released", async () => {
    const cache = new PdfDocumentCache(1);
    const held = await cache.open("held", storedFile([["first page"], ["second page"]]), limits);
    await (await cache.open("other", storedFile([["x"]]), limits)).close(); // evicts "held" while it is leased
    expect(work.closes).toBe(0);
    expect(await held.pageText(1)).toBe("second page");
    await held.close();
    expect(work.closes).toBe(1);
    await expect(held.pageText(0)).rejects.toThrow(/closed/);
    await cache.clear();
  });

  it("releases a lease that was dropped without close() once it is garbage-collected", async () => {
    v8.setFlagsFromString("--expose-gc");
    const gc = vm.runInNewContext("gc") as () => void;
    const cache = new PdfDocumentCache(1);
    await (async () => {
      const dropped = await cache.open("dropped", storedFile([["never closed"]]), limits);
      await dropped.pageText(0);
    })();
    await (await cache.open("other", storedFile([["x"]]), limits)).close(); // evicts "dropped", still leased
    expect(work.closes).toBe(0);
    for (let attempt = 0; attempt < 50 && work.closes === 0; attempt++) {
      gc();
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    expect(work.closes).toBe(1);
    await cache.clear();
  });

  it("closes a document nobody has used for PDF_KEEP_OPEN_S, and keeps a leased one open", async () => {
    const cache = new PdfDocumentCache(8);
    const briefly = { ...limits, keepOpenMs: 100 };
    const file = storedFile([["left alone"]]);
    const held = await cache.open("held", storedFile([["in use"]]), briefly);
    await (await cache.open("idle", file, briefly)).close();
    for (let attempt = 0; attempt < 200 && work.closes === 0; attempt++) {
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    expect(work.closes).toBe(1);
    expect(cache.size).toBe(1); // only the leased document is left
    expect(await held.pageText(0)).toBe("in use");
    await (await cache.open("idle", file, briefly)).close();
    expect(file.reads).toBe(2);
    await held.close();
    await cache.clear();
  });

  it("does not remember a file that failed to open", async () => {
    const cache = new PdfDocumentCache(8);
    let reads = 0;
    const corrupt = () => {
      reads++;
      return makeCorruptPdf();
    };
    await expect(cache.open("bad", corrupt, limits)).rejects.toBeInstanceOf(PdfError);
    await expect(cache.open("bad", corrupt, limits)).rejects.toMatchObject({ kind: "corrupt" });
    expect(reads).toBe(2);
    expect(cache.size).toBe(0);
  });
});

describe("openPdfCached", () => {
  it("returns the same document for the same key from the shared cache", async () => {
    const file = storedFile([["shared cache"]]);
    const first = await openPdfCached("sha256-shared-test", file, limits);
    expect(await first.pageText(0)).toBe("shared cache");
    await first.close();
    const second = await openPdfCached("sha256-shared-test", file, limits);
    expect(await second.pageText(0)).toBe("shared cache");
    await second.close();
    expect(file.reads).toBe(1);
    expect(work.parses).toBe(1);
  });
});

/** Eviction closes an unleased document in the background; wait for it. */
async function waitForCloses(count: number): Promise<void> {
  for (let attempt = 0; attempt < 100 && work.closes < count; attempt++) {
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  expect(work.closes).toBe(count);
}
