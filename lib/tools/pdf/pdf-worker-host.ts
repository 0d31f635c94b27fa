import type { PackedPage } from "./packed-page";
import { PdfError } from "./pdf-error";
import { PdfBudget, type PdfLimits } from "./pdf-limits";
import {
  liveThreads,
  PdfThread,
  parkThread,
  parsingSlots,
  spareThreads,
  takeSpareThread,
  threadCounts,
} from "./pdf-thread";
import { documentOptions } from "./pdfjs";

/**
 * One open PDF on a worker thread (`pdf-thread.ts`): opening, page requests and closing. A thread
 * serves one document at a time; once that document is closed normally the thread waits, warm, for
 * the next one (at most `limits.concurrency` spares, each for `limits.keepOpenMs`). A thread stopped
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

/** Threads (running, and spare among them), open documents and work done so far, for tests and benchmarks. */
export function pdfWorkerCounts() {
  return { threads: liveThreads(), spares: spareThreads(), ...threadCounts, ...counts };
}

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
  readonly #thread: PdfThread;
  readonly #endListeners: ((error: PdfError) => void)[] = [];
  readonly #unsubscribe: () => void;
  #ended: PdfError | undefined;
  #closing: Promise<void> | undefined;

  private constructor(thread: PdfThread, limits: PdfLimits) {
    this.#thread = thread;
    this.limits = limits;
    counts.documents++;
    this.#unsubscribe = thread.onEnd((error) => this.#finish(error));
  }

  /** Opens `bytes` (copied) on a spare or new thread, within `budget`. */
  static async open(
    bytes: Uint8Array,
    limits: PdfLimits,
    budget: PdfBudget,
  ): Promise<{ worker: PdfWorker; pageCount: number }> {
    // A new thread starts loading pdf.js at once, so it is taken inside a parsing slot.
    const slot = await parsingSlots.acquire(limits.concurrency);
    let thread: PdfThread;
    try {
      thread = takeSpareThread(limits.workerMemoryMb) ?? new PdfThread(limits.workerMemoryMb);
    } catch (error) {
      slot();
      throw error;
    }
    const copy = new Uint8Array(bytes); // the caller keeps its bytes; the copy moves to the thread
    const reply = await thread.request<OpenReply>(
      {
        type: "open",
        bytes: copy,
        options: documentOptions(),
        maxBufferBytes: limits.maxStreamMb * MB,
        maxPageItems: limits.maxPageItems,
        maxPageChars: limits.maxPageChars,
      },
      budget,
      { concurrency: limits.concurrency, slot, transfer: [copy.buffer] },
    );
    if (reply.type === "opened") return { worker: new PdfWorker(thread, limits), pageCount: reply.pageCount };
    if (!reply.bufferCapHit) {
      parkThread(thread, { max: limits.concurrency, keepMs: limits.keepOpenMs });
      throw toPdfError(reply.name, reply.message);
    }
    const error = new PdfError("stream_too_large", `${limits.maxStreamMb} MB`);
    await thread.stop(error);
    throw error;
  }

  /** Page `index`'s text items, or why the page is skipped. */
  page(index: number, budget: PdfBudget): Promise<PageReply> {
    if (this.#ended) return Promise.reject(this.#ended);
    counts.pageParses++;
    return this.#thread.request<PageReply>({ type: "page", index }, budget, { concurrency: this.limits.concurrency });
  }

  /** Called once when the document is gone: closed, or its thread stopped by a limit or a crash. */
  onEnd(listener: (error: PdfError) => void): void {
    if (this.#ended) listener(this.#ended);
    else this.#endListeners.push(listener);
  }

  /** Closes the document once the requests already sent are answered; its thread becomes a spare. */
  close(): Promise<void> {
    this.#closing ??= (async () => {
      await this.#thread.settled();
      if (this.#ended) return;
      this.#unsubscribe();
      try {
        await this.#thread.request({ type: "close" }, new PdfBudget(this.limits.timeBudgetMs), {
          concurrency: this.limits.concurrency,
        });
        parkThread(this.#thread, { max: this.limits.concurrency, keepMs: this.limits.keepOpenMs });
      } catch {
        // the thread stopped while closing: nothing is left to free
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
