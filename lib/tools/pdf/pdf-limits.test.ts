import { describe, expect, it } from "vitest";
import {
  makeEndlessPdf,
  makeFlateBombPdf,
  makeHugeStringPdf,
  makeManyItemsPdf,
  makeObjectStreamBombPdf,
} from "@/tests/support/pdf-bombs";
import { makeTextPdf } from "@/tests/support/pdf-fixtures";
import { countPdfWork, measureStall, openPdfDocuments, STALL_BOUND_MS, testPdfLimits } from "@/tests/support/pdf-work";
import { openPdf, PdfBudget, PdfDocumentCache, PdfError, type PdfLimits } from "./pdf-text";

/** Opens `bytes`, reads every page and closes: the pages and warnings, or the error that stopped it. */
async function readAll(bytes: Uint8Array, limits: PdfLimits): Promise<{ pages: string[]; warnings: string[] }> {
  const pdf = await openPdf(bytes, limits);
  try {
    const pages: string[] = [];
    for (let index = 0; index < pdf.pageCount; index++) pages.push(await pdf.pageText(index));
    return { pages, warnings: [...pdf.warnings] };
  } finally {
    await pdf.close();
  }
}

function stoppedWith(outcome: PromiseSettledResult<unknown>): PdfError {
  expect(outcome.status).toBe("rejected");
  const error = (outcome as PromiseRejectedResult).reason as unknown;
  expect(error).toBeInstanceOf(PdfError);
  return error as PdfError;
}

const skipped = "[Page 2 could not be read and was skipped.]";

describe("PDF limits: a hostile PDF never stalls the server nor takes its memory", () => {
  it("skips a page whose stream inflates past PDF_MAX_STREAM_MB, with a warning, and reads the others", async () => {
    const limits = testPdfLimits({ PDF_MAX_STREAM_MB: "1" });
    const { outcome, longestStallMs } = await measureStall(() =>
      readAll(makeFlateBombPdf(64, "before the bomb"), limits),
    );
    expect(outcome).toEqual({
      status: "fulfilled",
      value: {
        pages: ["before the bomb\n\n", skipped],
        warnings: ["Page 2 could not be read and was skipped: a stream on it inflates to more than 1 MB"],
      },
    });
    expect(longestStallMs).toBeLessThan(STALL_BOUND_MS);
  });

  it("refuses a PDF whose opening inflates a stream past PDF_MAX_STREAM_MB, and its worker is gone", async () => {
    const [work, open] = [countPdfWork(), openPdfDocuments()];
    const { outcome } = await measureStall(() =>
      openPdf(makeObjectStreamBombPdf(64), testPdfLimits({ PDF_MAX_STREAM_MB: "1" })),
    );
    const error = stoppedWith(outcome);
    expect(error.kind).toBe("stream_too_large");
    expect(error.message).toBe(
      "Reading this PDF was stopped: a stream in it inflates to more than 1 MB; the file may be damaged or built to exhaust the reader.",
    );
    expect(work.stopped).toBe(1); // its worker process is gone, not kept for another document
    expect(openPdfDocuments()).toBe(open);
  });

  it("stops a PDF that needs more than PDF_WORKER_MEMORY_MB of memory, and its worker is gone", async () => {
    const [work, open] = [countPdfWork(), openPdfDocuments()];
    // Lexing one 24 MB string takes an array of 24 M entries: far over a 64 MB heap.
    const limits = testPdfLimits({ PDF_WORKER_MEMORY_MB: "64", PDF_TIME_BUDGET_S: "120" });
    const { outcome, longestStallMs } = await measureStall(() => readAll(makeHugeStringPdf(24), limits));
    const error = stoppedWith(outcome);
    expect(error.kind).toBe("too_much_memory");
    expect(error.message).toBe(
      "Reading this PDF was stopped: it needed more than 64 MB of memory; the file may be damaged or built to exhaust the reader.",
    );
    expect(work.stopped).toBe(1); // its worker process is gone, not kept for another document
    expect(openPdfDocuments()).toBe(open);
    expect(longestStallMs).toBeLessThan(STALL_BOUND_MS);
  }, 120_000);

  it("stops a parse that outlasts PDF_TIME_BUDGET_S: the worker is terminated and the document unusable", async () => {
    const [work, open] = [countPdfWork(), openPdfDocuments()];
    // Opening gets the default budget (starting a worker can take a while on a busy machine).
    const pdf = await openPdf(makeEndlessPdf(), testPdfLimits());
    const { outcome, longestStallMs } = await measureStall(() => pdf.pageText(0, new PdfBudget(1000)));
    const error = stoppedWith(outcome);
    expect(error.kind).toBe("too_slow");
    expect(error.message).toBe(
      "Reading this PDF was stopped: it needed more than 1 s of processing time; the file may be damaged or built to exhaust the reader.",
    );
    expect(work.stopped).toBe(1); // its worker process is gone, not kept for another document
    expect(openPdfDocuments()).toBe(open);
    await expect(pdf.pageText(0)).rejects.toBe(error);
    await pdf.close();
    expect(longestStallMs).toBeLessThan(STALL_BOUND_MS);
  });

  it("skips a page with more than PDF_MAX_PAGE_ITEMS text items, with a warning, and reads the others", async () => {
    const { pages, warnings } = await readAll(
      makeManyItemsPdf(5000, "before the crowd"),
      testPdfLimits({ PDF_MAX_PAGE_ITEMS: "1000" }),
    );
    expect(pages).toEqual(["before the crowd\n\n", skipped]);
    expect(warnings).toEqual(["Page 2 could not be read and was skipped: it has more than 1000 text items"]);
  });

  it("skips a page with more than PDF_MAX_PAGE_CHARS characters of text, with a warning", async () => {
    const { pages, warnings } = await readAll(
      makeManyItemsPdf(5000, "before the crowd"),
      testPdfLimits({ PDF_MAX_PAGE_CHARS: "1000" }),
    );
    expect(pages).toEqual(["before the crowd\n\n", skipped]);
    expect(warnings).toEqual(["Page 2 could not be read and was skipped: it has more than 1000 characters of text"]);
  });

  it("runs at most PDF_WORKER_CONCURRENCY workers at once, and waiting for a turn costs no time budget", async () => {
    const limits = testPdfLimits({ PDF_WORKER_CONCURRENCY: "1" });
    const endless = await openPdf(makeEndlessPdf(), limits);
    const finished: string[] = [];
    const busy = endless.pageText(0, new PdfBudget(4000)).catch((error: unknown) => {
      finished.push("endless");
      return error;
    });
    await new Promise((resolve) => setImmediate(resolve)); // the page request now holds the one slot
    // Waits about 4 s for the endless page to be stopped, with a budget of 3 s for its own work.
    const patient = await openPdf(makeTextPdf([["patient"]]), limits, new PdfBudget(3000));
    finished.push("patient");
    expect(finished).toEqual(["endless", "patient"]); // it could not start while the other parsed
    expect(await patient.pageText(0)).toBe("patient");
    expect(await busy).toMatchObject({ kind: "too_slow" });
    await Promise.all([patient.close(), endless.close()]);
  });

  it("drops a cached document whose worker was stopped: the next open reads the file again", async () => {
    const cache = new PdfDocumentCache(8);
    const limits = testPdfLimits();
    let reads = 0;
    const file = () => {
      reads++;
      return makeEndlessPdf();
    };
    const first = await cache.open("endless", file, limits);
    await expect(first.pageText(0, new PdfBudget(1000))).rejects.toMatchObject({ kind: "too_slow" });
    await first.close();
    expect(cache.size).toBe(0);
    const second = await cache.open("endless", file, limits);
    expect(reads).toBe(2);
    await second.close();
    await cache.clear();
  });
});
