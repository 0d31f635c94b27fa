import { joinHyphenatedLines, knownWords } from "./hyphens";
import { unpackItems } from "./packed-page";
import { joinTextContent, PAGE_SEPARATOR, skippedPageText } from "./page-text";
import { PdfError } from "./pdf-error";
import { PdfBudget, type PdfLimits } from "./pdf-limits";
import { type PageReply, PdfWorker } from "./pdf-worker-host";

/** A PDF opened for reading, page by page, parsed in its own worker process (`pdf-worker-host.ts`). */

export interface PdfText {
  readonly pageCount: number;
  /**
   * Text of page `index` (0-based), normalised, ending with the page separator "\n\n" except on the
   * last page; the concatenation of all pages is the document text. A page that fails to parse (or
   * goes past a per-page limit) yields "[Page N could not be read and was skipped.]" (1-based N, same
   * separator rule) and adds a warning. Memoised per document: each page is parsed at most once.
   * A line-end hyphen is joined when the joined word occurs on this page or the one before or after
   * (so reading page N parses page N+1 too: the text of a page never depends on what was read before).
   * Parsing counts against `budget` (default: the one the document was opened with); when the budget
   * runs out, or the worker dies, this rejects with a `PdfError` and the document is unusable.
   */
  pageText(index: number, budget?: PdfBudget): Promise<string>;
  /** One line per skipped page, in the order pages were read. */
  readonly warnings: string[];
  /** Frees the document (for a cached document: releases this lease). */
  close(): Promise<void>;
}

/** Acrobat accepts the header anywhere in the first 1024 bytes, and so does pdf.js. */
function hasPdfHeader(bytes: Uint8Array): boolean {
  return Buffer.from(bytes.buffer, bytes.byteOffset, Math.min(bytes.length, 1024)).includes("%PDF-", 0, "latin1");
}

function skipReason(reply: Extract<PageReply, { type: "skipped" }>, limits: PdfLimits): string {
  if (reply.cause === "buffer") return `a stream on it inflates to more than ${limits.maxStreamMb} MB`;
  if (reply.cause === "items") return `it has more than ${limits.maxPageItems} text items`;
  if (reply.cause === "chars") return `it has more than ${limits.maxPageChars} characters of text`;
  return reply.message ?? "unknown error";
}

export class PdfDocument implements PdfText {
  readonly pageCount: number;
  readonly warnings: string[] = [];
  readonly #worker: PdfWorker;
  /**
   * A long document's bytes until its second worker, for the odd pages, is opened (at the first odd
   * page); undefined for a short document. If the second cannot open, the first reads every page.
   */
  #bytes: Uint8Array | undefined;
  #second: Promise<PdfWorker | undefined> | undefined;
  readonly #budget: PdfBudget;
  readonly #pages = new Map<number, Promise<string>>();
  /** Page texts before line-end hyphens are joined, without the separator. */
  readonly #unjoined = new Map<number, Promise<string>>();
  readonly #endListeners: ((error: PdfError) => void)[] = [];
  #ended: PdfError | undefined;
  #closed: Promise<void> | undefined;

  constructor(worker: PdfWorker, pageCount: number, budget: PdfBudget, bytes?: Uint8Array) {
    this.#worker = worker;
    this.pageCount = pageCount;
    this.#budget = budget;
    this.#bytes = bytes;
    worker.onEnd((error) => this.#end(error));
  }

  pageText(index: number, budget = this.#budget): Promise<string> {
    if (!Number.isInteger(index) || index < 0 || index >= this.pageCount) {
      return Promise.reject(new RangeError(`Page index ${index} is outside 0..${this.pageCount - 1}.`));
    }
    const known = this.#pages.get(index);
    if (known) return known;
    if (this.#closed) return Promise.reject(new Error("The PDF document is closed."));
    const text = this.#extract(index, budget);
    this.#pages.set(index, text);
    return text;
  }

  /** Called once when the document is gone: closed, or a worker stopped by a limit or a crash (with why). */
  onEnd(listener: (error: PdfError) => void): void {
    if (this.#ended) listener(this.#ended);
    else this.#endListeners.push(listener);
  }

  #end(error: PdfError): void {
    if (this.#ended) return;
    this.#ended = error;
    for (const listener of this.#endListeners.splice(0)) listener(error);
  }

  async #extract(index: number, budget: PdfBudget): Promise<string> {
    const separator = index < this.pageCount - 1 ? PAGE_SEPARATOR : "";
    const text = this.#unjoinedText(index, budget);
    const around = [index - 1, index + 1].filter((i) => i >= 0 && i < this.pageCount);
    const texts = await Promise.all([text, ...around.map((i) => this.#unjoinedText(i, budget))]);
    // With two workers, the page after the next one is read ahead, so both stay busy for a reader
    // going forward (its failure, if any, belongs to whoever asks for that page).
    if ((this.#bytes || this.#second) && index + 2 < this.pageCount)
      this.#unjoinedText(index + 2, budget).catch(() => undefined);
    return joinHyphenatedLines(await text, knownWords(texts.join("\n"))) + separator;
  }

  #unjoinedText(index: number, budget: PdfBudget): Promise<string> {
    let text = this.#unjoined.get(index);
    if (!text) {
      text = this.#parse(index, budget);
      this.#unjoined.set(index, text);
    }
    return text;
  }

  async #parse(index: number, budget: PdfBudget): Promise<string> {
    const worker = (index % 2 === 1 && (await this.#secondWorker(budget))) || this.#worker;
    const reply = await worker.page(index, budget);
    if (reply.type === "page") return joinTextContent({ items: unpackItems(reply), styles: reply.styles });
    this.warnings.push(
      `Page ${index + 1} could not be read and was skipped: ${skipReason(reply, this.#worker.limits)}`,
    );
    return skippedPageText(index + 1);
  }

  #secondWorker(budget: PdfBudget): Promise<PdfWorker | undefined> | undefined {
    const bytes = this.#bytes;
    if (bytes) {
      this.#bytes = undefined;
      this.#second = PdfWorker.open(bytes, this.#worker.limits, budget).then(
        ({ worker }) => {
          worker.onEnd((error) => this.#end(error));
          return worker;
        },
        () => undefined,
      );
    }
    return this.#second;
  }

  close(): Promise<void> {
    this.#bytes = undefined;
    // The worker answers the pages already asked for first: a close never turns one into a skipped page.
    this.#closed ??= Promise.all([this.#worker.close(), this.#second?.then((other) => other?.close())]).then(
      () => undefined,
    );
    return this.#closed;
  }
}

/**
 * Opens a PDF from its bytes (copied into a new worker) within `budget`, which then stays the
 * default budget of `pageText`.
 */
export async function openPdf(
  bytes: Uint8Array,
  limits: PdfLimits,
  budget = new PdfBudget(limits.timeBudgetMs),
): Promise<PdfDocument> {
  if (!hasPdfHeader(bytes)) throw new PdfError("not_pdf");
  const { worker, pageCount } = await PdfWorker.open(bytes, limits, budget);
  return new PdfDocument(worker, pageCount, budget, pageCount >= limits.twoWorkersMinPages ? bytes : undefined);
}
