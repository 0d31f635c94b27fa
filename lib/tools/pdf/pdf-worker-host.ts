import path from "node:path";
import type { Worker } from "node:worker_threads";
import type { PackedPage } from "./packed-page";
import { PdfError, seconds } from "./pdf-error";
import type { PdfBudget, PdfLimits } from "./pdf-limits";
import { documentOptions } from "./pdfjs";

/**
 * One worker thread per open PDF (`pdf-worker.mjs`), so pdf.js never runs on the server's main
 * thread. The host sends one request at a time, and each runs under the caller's time budget and
 * inside one of a few process-wide parsing slots. A worker that runs out of time is terminated; one
 * that runs out of memory or dies is gone: every pending and later request fails with a `PdfError`.
 */

export type PageReply =
  | PackedPage
  /** `buffer`: a stream went past the buffer cap; `items`, `chars`: the page has more text than allowed. */
  | { type: "skipped"; cause: "buffer" | "items" | "chars" | "error"; message?: string };

type OpenReply =
  | { type: "opened"; pageCount: number }
  | { type: "failed"; name: string; message: string; bufferCapHit: boolean };

type WorkerRequest = { type: "open" } | { type: "page"; index: number };

const WORKER_FILE = "pdf-worker.mjs";
const MB = 1024 * 1024;

/**
 * The worker script, by absolute path: next to this module (vitest, plain Node, and Turbopack, which
 * maps `import.meta.url` to the source file in the project), else under the working directory
 * (`next start` runs in the project root). Node's modules come from `process.getBuiltinModule` and
 * the paths carry `turbopackIgnore`, so the bundler neither bundles the worker nor traces the paths.
 */
let script: string | undefined;
function workerScript(): string {
  if (script) return script;
  const { existsSync } = process.getBuiltinModule("node:fs");
  const { fileURLToPath } = process.getBuiltinModule("node:url");
  const candidates: string[] = [];
  try {
    candidates.push(path.join(/*turbopackIgnore: true*/ path.dirname(fileURLToPath(import.meta.url)), WORKER_FILE));
  } catch {
    // not a file URL in this build
  }
  candidates.push(path.join(/*turbopackIgnore: true*/ process.cwd(), "lib", "tools", "pdf", WORKER_FILE));
  script = candidates.find((candidate) => existsSync(candidate));
  if (!script) throw new Error(`The PDF worker script is missing (looked for ${candidates.join(", ")}).`);
  return script;
}

/** Parsing slots shared by every document of the process; waiting for one costs no budget. */
class ParsingSlots {
  #busy = 0;
  #limit = 1;
  readonly #waiting: (() => void)[] = [];

  async acquire(limit: number): Promise<() => void> {
    this.#limit = limit;
    if (this.#busy >= this.#limit) await new Promise<void>((resolve) => this.#waiting.push(resolve));
    else this.#busy++;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      // The slot passes straight to the next waiter, unless the limit has been lowered meanwhile.
      const next = this.#busy <= this.#limit ? this.#waiting.shift() : undefined;
      if (next) next();
      else this.#busy--;
    };
  }
}

const slots = new ParsingSlots();
const alive = new Set<PdfWorker>();
const counts = { started: 0, pageParses: 0 };

/** Workers running now, started so far and pages parsed so far (for tests and benchmarks). */
export function pdfWorkerCounts(): { alive: number; started: number; pageParses: number } {
  return { alive: alive.size, ...counts };
}

function toPdfError(name: string, message: string): PdfError {
  // pdf.js throws PasswordException for a user password; an unsupported security handler
  // (certificates, unknown crypt filters) surfaces as a format error about encryption.
  if (name === "PasswordException" || /encrypt|crypt filter|security handler/i.test(message)) {
    return new PdfError("encrypted");
  }
  return new PdfError("corrupt", message);
}

interface Pending {
  id: number;
  resolve(reply: OpenReply | PageReply): void;
  reject(error: PdfError): void;
}

export class PdfWorker {
  readonly #worker: Worker;
  readonly #limits: PdfLimits;
  readonly #endListeners: ((error: PdfError) => void)[] = [];
  /** Requests go one at a time, so at most one is pending. */
  #pending: Pending | undefined;
  #nextId = 0;
  #tail: Promise<unknown> = Promise.resolve();
  #ended: PdfError | undefined;
  #terminated: Promise<void> | undefined;

  private constructor(bytes: Uint8Array, limits: PdfLimits) {
    const { Worker } = process.getBuiltinModule("node:worker_threads");
    const copy = new Uint8Array(bytes); // the caller keeps its bytes; the copy moves to the worker
    this.#limits = limits;
    this.#worker = new Worker(workerScript(), {
      workerData: {
        bytes: copy,
        options: documentOptions(),
        maxBufferBytes: limits.maxStreamMb * MB,
        maxPageItems: limits.maxPageItems,
        maxPageChars: limits.maxPageChars,
      },
      transferList: [copy.buffer],
      resourceLimits: { maxOldGenerationSizeMb: limits.workerMemoryMb },
    });
    counts.started++;
    alive.add(this);
    this.#worker.on("message", (reply: { id: number } & (OpenReply | PageReply)) => {
      const pending = this.#pending;
      if (this.#ended || pending?.id !== reply.id) return;
      this.#pending = undefined;
      this.#worker.unref(); // an idle worker never keeps the process alive
      pending.resolve(reply);
    });
    this.#worker.on("error", (error: Error & { code?: string }) => {
      this.#end(
        error.code === "ERR_WORKER_OUT_OF_MEMORY"
          ? new PdfError("too_much_memory", `${limits.workerMemoryMb} MB`)
          : new PdfError("reader_failed", error.message),
      );
    });
    this.#worker.on("exit", (code) => this.#end(new PdfError("reader_failed", `exit code ${code}`)));
  }

  /** Starts a worker on `bytes` and opens the document; the worker is gone if this rejects. */
  static async open(
    bytes: Uint8Array,
    limits: PdfLimits,
    budget: PdfBudget,
  ): Promise<{ worker: PdfWorker; pageCount: number }> {
    // The worker starts loading pdf.js at once, so it is started inside a parsing slot.
    const release = await slots.acquire(limits.concurrency);
    let worker: PdfWorker;
    try {
      worker = new PdfWorker(bytes, limits);
    } catch (error) {
      release();
      throw error;
    }
    const reply = (await worker.#request({ type: "open" }, budget, release)) as OpenReply;
    if (reply.type === "opened") return { worker, pageCount: reply.pageCount };
    const error = reply.bufferCapHit
      ? new PdfError("stream_too_large", `${limits.maxStreamMb} MB`)
      : toPdfError(reply.name, reply.message);
    await worker.#end(error);
    throw error;
  }

  get limits(): PdfLimits {
    return this.#limits;
  }

  /** Page `index`'s text items, or why the page is skipped. */
  page(index: number, budget: PdfBudget): Promise<PageReply> {
    counts.pageParses++;
    return this.#request({ type: "page", index }, budget) as Promise<PageReply>;
  }

  /** Called once when the worker is gone: closed, stopped by a limit, or dead. */
  onEnd(listener: (error: PdfError) => void): void {
    const ended = this.#ended;
    if (ended) void this.#end(ended).then(() => listener(ended));
    else this.#endListeners.push(listener);
  }

  /** Terminates the worker once the requests already sent are answered. */
  async close(): Promise<void> {
    await this.#tail;
    await this.#end(new PdfError("reader_failed", "the document was closed"));
  }

  #request(request: WorkerRequest, budget: PdfBudget, heldSlot?: () => void): Promise<OpenReply | PageReply> {
    const result = this.#tail.then(() => this.#dispatch(request, budget, heldSlot));
    this.#tail = result.catch(() => undefined);
    return result;
  }

  async #dispatch(request: WorkerRequest, budget: PdfBudget, heldSlot?: () => void): Promise<OpenReply | PageReply> {
    const release = heldSlot ?? (await slots.acquire(this.#limits.concurrency));
    const started = performance.now();
    let timer: NodeJS.Timeout | undefined;
    try {
      if (this.#ended) throw this.#ended;
      const reply = this.#send(request);
      const stop = () => void this.#end(new PdfError("too_slow", seconds(budget.totalMs)));
      if (budget.remainingMs <= 0) stop();
      else timer = setTimeout(stop, budget.remainingMs);
      return await reply;
    } finally {
      clearTimeout(timer);
      budget.spend(performance.now() - started);
      release();
    }
  }

  #send(request: WorkerRequest): Promise<OpenReply | PageReply> {
    const id = this.#nextId++;
    return new Promise((resolve, reject) => {
      this.#pending = { id, resolve, reject };
      this.#worker.ref(); // a busy worker keeps the process alive until it answers
      this.#worker.postMessage({ id, ...request });
    });
  }

  /**
   * Stops the worker for good. The pending request and every later one fail with `error`, once the
   * thread is gone (so a caller that sees the error never sees the worker still running).
   */
  #end(error: PdfError): Promise<void> {
    if (!this.#ended) {
      this.#ended = error;
      this.#terminated = this.#worker
        .terminate()
        .catch(() => undefined)
        .then(() => {
          alive.delete(this);
          this.#pending?.reject(error);
          this.#pending = undefined;
          for (const listener of this.#endListeners.splice(0)) listener(error);
        });
    }
    return this.#terminated ?? Promise.resolve();
  }
}
