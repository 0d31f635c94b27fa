import type { PackedPage } from "./packed-page";
import { PdfError } from "./pdf-error";
import { PdfBudget, type PdfLimits } from "./pdf-limits";
import {
  liveProcesses,
  PdfProcess,
  parkProcess,
  parsingSlots,
  processCounts,
  processIds,
  spareProcesses,
  takeSpareProcess,
} from "./pdf-process";
import { documentOptions } from "./pdfjs";

/**
 * One open PDF in a worker process (`pdf-process.ts`): opening, page requests and closing. A process
 * serves one document at a time; once that document is closed normally the process waits, warm, for
 * the next one (at most `limits.concurrency` spares, each for `limits.keepOpenMs`). A process stopped
 * by a limit or a crash is never reused.
 */

export type PageReply =
  | PackedPage
  /** `buffer`: a stream went past the buffer cap; `items`, `chars`: the page has more text than allowed. */
  | { type: "skipped"; cause: "buffer" | "items" | "chars" | "error"; message?: string };

type OpenReply =
  | { type: "opened"; pageCount: number }
  | { type: "failed"; name: string; message: string; bufferCapHit: boolean };

const MB = 1024 * 1024;
const counts = { documents: 0, documentsClosed: 0, pageParses: 0 };

/** Worker processes (running, and spare among them), open documents and work done so far, for tests and benchmarks. */
export function pdfWorkerCounts() {
  return { processes: liveProcesses(), spares: spareProcesses(), ...processCounts, ...counts };
}

/** The process ids of the worker processes alive now, for tests and benchmarks. */
export const pdfWorkerPids = processIds;

function toPdfError(name: string, message: string): PdfError {
  // pdf.js throws PasswordException for a user password; an unsupported security handler
  // (certificates, unknown crypt filters) surfaces as a format error about encryption.
  if (name === "PasswordException" || /encrypt|crypt filter|security handler/i.test(message)) {
    return new PdfError("encrypted");
  }
  return new PdfError("corrupt", message);
}

export class PdfWorker {
  readonly limits: PdfLimits;
  readonly #process: PdfProcess;
  readonly #endListeners: ((error: PdfError) => void)[] = [];
  readonly #unsubscribe: () => void;
  #ended: PdfError | undefined;
  #closing: Promise<void> | undefined;

  private constructor(child: PdfProcess, limits: PdfLimits) {
    this.#process = child;
    this.limits = limits;
    counts.documents++;
    this.#unsubscribe = child.onEnd((error) => this.#finish(error));
  }

  /** Opens `bytes` (copied) in a spare or new process, within `budget`. */
  static async open(
    bytes: Uint8Array,
    limits: PdfLimits,
    budget: PdfBudget,
  ): Promise<{ worker: PdfWorker; pageCount: number }> {
    // A new process starts loading pdf.js at once, so it is taken inside a parsing slot.
    const slot = await parsingSlots.acquire(limits.concurrency);
    let child: PdfProcess;
    try {
      child = takeSpareProcess(limits.workerMemoryMb) ?? new PdfProcess(limits.workerMemoryMb);
    } catch (error) {
      slot();
      throw error;
    }
    const reply = await child.request<OpenReply>(
      {
        type: "open",
        bytes,
        options: documentOptions(),
        maxBufferBytes: limits.maxStreamMb * MB,
        maxPageItems: limits.maxPageItems,
        maxPageChars: limits.maxPageChars,
      },
      budget,
      { concurrency: limits.concurrency, slot },
    );
    if (reply.type === "opened") return { worker: new PdfWorker(child, limits), pageCount: reply.pageCount };
    if (!reply.bufferCapHit) {
      parkProcess(child, { max: limits.concurrency, keepMs: limits.keepOpenMs });
      throw toPdfError(reply.name, reply.message);
    }
    const error = new PdfError("stream_too_large", `${limits.maxStreamMb} MB`);
    await child.stop(error);
    throw error;
  }

  /** Page `index`'s text items, or why the page is skipped. */
  page(index: number, budget: PdfBudget): Promise<PageReply> {
    if (this.#ended) return Promise.reject(this.#ended);
    counts.pageParses++;
    return this.#process.request<PageReply>({ type: "page", index }, budget, { concurrency: this.limits.concurrency });
  }

  /** Called once when the document is gone: closed, or its process stopped by a limit or a crash. */
  onEnd(listener: (error: PdfError) => void): void {
    if (this.#ended) listener(this.#ended);
    else this.#endListeners.push(listener);
  }

  /** Closes the document once the requests already sent are answered; its process becomes a spare. */
  close(): Promise<void> {
    this.#closing ??= (async () => {
      await this.#process.settled();
      if (this.#ended) return;
      this.#unsubscribe();
      try {
        await this.#process.request({ type: "close" }, new PdfBudget(this.limits.timeBudgetMs), {
          concurrency: this.limits.concurrency,
        });
        parkProcess(this.#process, { max: this.limits.concurrency, keepMs: this.limits.keepOpenMs });
      } catch {
        // the process stopped while closing: nothing is left to free
      }
      this.#finish(new PdfError("closed"));
    })();
    return this.#closing;
  }

  #finish(error: PdfError): void {
    if (this.#ended) return;
    this.#ended = error;
    counts.documentsClosed++;
    for (const listener of this.#endListeners.splice(0)) listener(error);
  }
}
