import path from "node:path";
import type { Worker } from "node:worker_threads";
import { PdfError, seconds } from "./pdf-error";
import type { PdfBudget } from "./pdf-limits";

/**
 * A worker thread running pdf.js (`pdf-worker.mjs`), so pdf.js never runs on the server's main
 * thread. Requests go one at a time, each inside one of a few process-wide parsing slots and under
 * the caller's time budget. A thread that runs out of time is terminated; one that runs out of memory
 * or dies is gone: its pending and later requests fail with a `PdfError`. A thread whose document was
 * closed normally may wait, warm, for the next document (`parkThread`, `takeSpareThread`).
 */

const WORKER_FILE = "pdf-worker.mjs";

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

/** Parsing slots shared by every thread of the process; waiting for one costs no budget. */
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

export const parsingSlots = new ParsingSlots();

const alive = new Set<PdfThread>();
export const threadCounts = { started: 0, stopped: 0 };

export function liveThreads(): number {
  return alive.size;
}

interface Pending {
  id: number;
  resolve(reply: unknown): void;
  reject(error: PdfError): void;
}

export class PdfThread {
  /** The heap limit this thread was started with (a spare is reused only for the same limit). */
  readonly memoryMb: number;
  readonly #worker: Worker;
  readonly #endListeners = new Set<(error: PdfError) => void>();
  /** Requests go one at a time, so at most one is pending. */
  #pending: Pending | undefined;
  #nextId = 0;
  #tail: Promise<unknown> = Promise.resolve();
  #ended: PdfError | undefined;
  #terminated: Promise<void> | undefined;

  constructor(memoryMb: number) {
    const { Worker } = process.getBuiltinModule("node:worker_threads");
    this.memoryMb = memoryMb;
    this.#worker = new Worker(workerScript(), { resourceLimits: { maxOldGenerationSizeMb: memoryMb } });
    threadCounts.started++;
    alive.add(this);
    this.#worker.on("message", (reply: { id: number }) => {
      const pending = this.#pending;
      if (this.#ended || pending?.id !== reply.id) return;
      this.#pending = undefined;
      this.#worker.unref(); // an idle thread never keeps the process alive
      pending.resolve(reply);
    });
    this.#worker.on("error", (error: Error & { code?: string }) => {
      void this.stop(
        error.code === "ERR_WORKER_OUT_OF_MEMORY"
          ? new PdfError("too_much_memory", `${memoryMb} MB`)
          : new PdfError("reader_failed", error.message),
      );
    });
    this.#worker.on("exit", (code) => void this.stop(new PdfError("reader_failed", `exit code ${code}`)));
  }

  get ended(): PdfError | undefined {
    return this.#ended;
  }

  /**
   * Sends `request` once the earlier ones are answered, inside a parsing slot (`slot` if the caller
   * holds one already) and within `budget`: when the budget runs out first, the thread is stopped.
   */
  request<Reply>(
    request: Record<string, unknown>,
    budget: PdfBudget,
    { concurrency, slot, transfer = [] }: { concurrency: number; slot?: () => void; transfer?: ArrayBuffer[] },
  ): Promise<Reply> {
    const acquire = slot ? async () => slot : () => parsingSlots.acquire(concurrency);
    const result = this.#tail.then(() => this.#dispatch(request, budget, acquire, transfer));
    this.#tail = result.catch(() => undefined);
    return result as Promise<Reply>;
  }

  /** Waits until the requests already sent are answered (or failed). */
  settled(): Promise<unknown> {
    return this.#tail;
  }

  /** `listener` is told once if the thread stops; the returned function unsubscribes. */
  onEnd(listener: (error: PdfError) => void): () => void {
    this.#endListeners.add(listener);
    return () => this.#endListeners.delete(listener);
  }

  /**
   * Stops the thread for good. The pending request and every later one fail with `error`, once the
   * thread is gone (so a caller that sees the error never sees the thread still running).
   */
  stop(error: PdfError): Promise<void> {
    if (!this.#ended) {
      this.#ended = error;
      if (error.kind !== "closed") threadCounts.stopped++;
      this.#terminated = this.#worker
        .terminate()
        .catch(() => undefined)
        .then(() => {
          alive.delete(this);
          this.#pending?.reject(error);
          this.#pending = undefined;
          for (const listener of [...this.#endListeners]) listener(error);
          this.#endListeners.clear();
        });
    }
    return this.#terminated ?? Promise.resolve();
  }

  async #dispatch(
    request: Record<string, unknown>,
    budget: PdfBudget,
    acquire: () => Promise<() => void>,
    transfer: ArrayBuffer[],
  ): Promise<unknown> {
    const release = await acquire();
    const started = performance.now();
    let timer: NodeJS.Timeout | undefined;
    try {
      if (this.#ended) throw this.#ended;
      const reply = this.#send(request, transfer);
      const tooSlow = () => void this.stop(new PdfError("too_slow", seconds(budget.totalMs)));
      if (budget.remainingMs <= 0) tooSlow();
      else timer = setTimeout(tooSlow, budget.remainingMs);
      return await reply;
    } finally {
      clearTimeout(timer);
      budget.spend(performance.now() - started);
      release();
    }
  }

  #send(request: Record<string, unknown>, transfer: ArrayBuffer[]): Promise<unknown> {
    const id = this.#nextId++;
    return new Promise((resolve, reject) => {
      this.#pending = { id, resolve, reject };
      this.#worker.ref(); // a busy thread keeps the process alive until it answers
      this.#worker.postMessage({ id, ...request }, transfer);
    });
  }
}

/** Threads whose document closed normally, warm (pdf.js loaded and compiled), for the next document. */
const spares: { thread: PdfThread; expiry: NodeJS.Timeout }[] = [];

/** A spare thread started with `memoryMb`, if one is waiting. */
export function takeSpareThread(memoryMb: number): PdfThread | undefined {
  const index = spares.findIndex((spare) => spare.thread.memoryMb === memoryMb && !spare.thread.ended);
  if (index < 0) return undefined;
  const [spare] = spares.splice(index, 1);
  clearTimeout(spare!.expiry);
  return spare!.thread;
}

/** Keeps `thread` as a spare for `keepMs`, or stops it when `max` spares are waiting already. */
export function parkThread(thread: PdfThread, { max, keepMs }: { max: number; keepMs: number }): void {
  if (thread.ended) return;
  if (spares.length >= max) {
    void thread.stop(new PdfError("closed"));
    return;
  }
  const spare = {
    thread,
    expiry: setTimeout(() => {
      spares.splice(spares.indexOf(spare), 1);
      void thread.stop(new PdfError("closed"));
    }, keepMs),
  };
  spare.expiry.unref();
  spares.push(spare);
}

export function spareThreads(): number {
  return spares.length;
}
