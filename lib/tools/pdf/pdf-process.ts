import type { ChildProcess } from "node:child_process";
import type { Socket } from "node:net";
import path from "node:path";
import { Semaphore } from "../../util/semaphore";
import { PdfError, seconds } from "./pdf-error";
import type { PdfBudget } from "./pdf-limits";

/**
 * A child process running pdf.js (`pdf-worker.mjs`), so pdf.js never runs in the server's process:
 * a bomb's memory is the child's, a crash or abort in it ends the child only, and V8's background
 * threads (garbage collection, compilation), which a worker thread shares with the server at normal
 * priority, are the child's own. The child lowers every one of its threads to nice 19 and runs with
 * a capped heap (`--max-old-space-size`). Requests go one at a time, each
 * inside one of a few process-wide parsing slots and under the caller's time budget. A child that
 * runs out of time is killed; one that runs out of memory or dies is gone: its pending and later
 * requests fail with a `PdfError`. A child whose document was closed normally may wait, warm, for
 * the next document (`parkProcess`, `takeSpareProcess`). No child outlives the server's process.
 */

const WORKER_FILE = "pdf-worker.mjs";
/** V8's last words when a heap reaches its limit (a stack trace follows them). */
const OUT_OF_MEMORY = /heap out of memory|Reached heap limit/i;

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

/** Parsing slots shared by every child of the process (FIFO); waiting for one costs no budget. */
export const parsingSlots = new Semaphore();

const alive = new Set<PdfProcess>();
export const processCounts = { started: 0, stopped: 0 };

export function liveProcesses(): number {
  return alive.size;
}

/** The process ids of the children alive now (for tests and benchmarks). */
export function processIds(): number[] {
  return [...alive].map((child) => child.pid);
}

/** Kills every child at once; synchronous, so it also runs from the process's `exit` event. */
function killAll(): void {
  for (const child of alive) child.kill();
}
let killedOnExit = false;

/**
 * Node with a heap cap, running the worker script. On Linux through util-linux's `setpriv`, when
 * there is one, so the kernel kills the child the moment the server's process dies, however it dies
 * (a child busy in pdf.js would not notice its IPC channel closing).
 */
function workerCommand(memoryMb: number): { file: string; args: string[] } {
  const node = [process.execPath, `--max-old-space-size=${memoryMb}`, workerScript()];
  if (process.platform !== "linux") return { file: node[0]!, args: node.slice(1) };
  return {
    file: "/bin/sh",
    args: [
      "-c",
      'command -v setpriv >/dev/null && exec setpriv --pdeathsig KILL "$@"; exec "$@"',
      "pdf-worker",
      ...node,
    ],
  };
}

interface Pending {
  id: number;
  resolve(reply: unknown): void;
  reject(error: PdfError): void;
}

/** Why a child ended on its own: its heap limit, else a crash named by its exit status. */
function exitError(code: number | null, signal: NodeJS.Signals | null, outOfMemory: boolean, memoryMb: number) {
  if (outOfMemory) return new PdfError("too_much_memory", `${memoryMb} MB`);
  return new PdfError("reader_failed", signal ?? `exit code ${code}`);
}

export class PdfProcess {
  /** The heap limit this child was started with (a spare is reused only for the same limit). */
  readonly memoryMb: number;
  readonly #child: ChildProcess;
  readonly #endListeners = new Set<(error: PdfError) => void>();
  /** Requests go one at a time, so at most one is pending. */
  #pending: Pending | undefined;
  #nextId = 0;
  #tail: Promise<unknown> = Promise.resolve();
  #ended: PdfError | undefined;
  readonly #closed: Promise<void>;

  constructor(memoryMb: number) {
    const { spawn } = process.getBuiltinModule("node:child_process");
    this.memoryMb = memoryMb;
    // No inherited environment: NODE_OPTIONS and the server's secrets have no business there.
    const { file, args } = workerCommand(memoryMb);
    this.#child = spawn(file, args, {
      stdio: ["ignore", "ignore", "pipe", "ipc"],
      serialization: "advanced",
      env: { PATH: process.env.PATH ?? "", NODE_ENV: process.env.NODE_ENV },
    });
    if (!killedOnExit) {
      killedOnExit = true;
      process.once("exit", killAll);
    }
    processCounts.started++;
    alive.add(this);
    let outOfMemory = false;
    let stderrTail = "";
    this.#child.stderr?.setEncoding("utf8").on("data", (text: string) => {
      outOfMemory ||= OUT_OF_MEMORY.test(stderrTail + text);
      stderrTail = text.slice(-100); // a phrase split across two chunks is still found
    });
    this.#child.on("message", (reply: { id: number }) => {
      const pending = this.#pending;
      if (this.#ended || pending?.id !== reply.id) return;
      this.#pending = undefined;
      this.#setRef(false); // an idle child never keeps the process alive
      pending.resolve(reply);
    });
    // Only a child that could not be started (or killed) reports an error: it ends in "close" too, or never started.
    this.#child.on("error", (error) => void this.stop(new PdfError("reader_failed", error.message)));
    this.#closed = new Promise((resolve) => {
      this.#child.once("close", (code, signal) => {
        void this.stop(exitError(code, signal, outOfMemory, memoryMb));
        resolve();
      });
      this.#child.once("error", () => {
        if (this.#child.pid === undefined) resolve();
      });
    });
    this.#setRef(false);
  }

  get ended(): PdfError | undefined {
    return this.#ended;
  }

  get pid(): number {
    return this.#child.pid ?? 0;
  }

  /**
   * Sends `request` once the earlier ones are answered, inside a parsing slot (`slot` if the caller
   * holds one already) and within `budget`: when the budget runs out first, the child is killed.
   */
  request<Reply>(
    request: Record<string, unknown>,
    budget: PdfBudget,
    { concurrency, slot }: { concurrency: number; slot?: () => void },
  ): Promise<Reply> {
    const acquire = slot ? async () => slot : () => parsingSlots.acquire(concurrency);
    const result = this.#tail.then(() => this.#dispatch(request, budget, acquire));
    this.#tail = result.catch(() => undefined);
    return result as Promise<Reply>;
  }

  /** Waits until the requests already sent are answered (or failed). */
  settled(): Promise<unknown> {
    return this.#tail;
  }

  /** `listener` is told once if the child stops; the returned function unsubscribes. */
  onEnd(listener: (error: PdfError) => void): () => void {
    this.#endListeners.add(listener);
    return () => this.#endListeners.delete(listener);
  }

  /** Kills the child at once (no cleanup to wait for: its memory goes with it). */
  kill(): void {
    this.#child.kill("SIGKILL");
  }

  /**
   * Stops the child for good. The pending request and every later one fail with `error` (the first
   * reason given wins), once the child is gone (so a caller that sees the error never sees it running).
   */
  async stop(error: PdfError): Promise<void> {
    if (!this.#ended) {
      this.#ended = error;
      if (error.kind !== "closed") processCounts.stopped++;
      this.kill();
      await this.#closed;
      alive.delete(this);
      const pending = this.#pending;
      this.#pending = undefined;
      pending?.reject(error);
      for (const listener of [...this.#endListeners]) listener(error);
      this.#endListeners.clear();
    }
    await this.#closed;
  }

  #setRef(busy: boolean): void {
    // The stderr pipe is a socket (typed as a plain stream).
    const handles = [this.#child, this.#child.channel, this.#child.stderr as Socket | null];
    for (const handle of handles) {
      if (busy) handle?.ref();
      else handle?.unref();
    }
  }

  async #dispatch(
    request: Record<string, unknown>,
    budget: PdfBudget,
    acquire: () => Promise<() => void>,
  ): Promise<unknown> {
    const release = await acquire();
    const started = performance.now();
    let timer: NodeJS.Timeout | undefined;
    try {
      if (this.#ended) throw this.#ended;
      const reply = this.#send(request);
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

  #send(request: Record<string, unknown>): Promise<unknown> {
    const id = this.#nextId++;
    return new Promise((resolve, reject) => {
      this.#pending = { id, resolve, reject };
      this.#setRef(true); // a busy child keeps the process alive until it answers
      // A child that died before reading it ends in "close", which fails this request.
      this.#child.send({ id, ...request }, () => {});
    });
  }
}

/** Children whose document closed normally, warm (pdf.js loaded and compiled), for the next document. */
const spares: { child: PdfProcess; expiry: NodeJS.Timeout }[] = [];

/** A spare child started with `memoryMb`, if one is waiting. */
export function takeSpareProcess(memoryMb: number): PdfProcess | undefined {
  const index = spares.findIndex((spare) => spare.child.memoryMb === memoryMb && !spare.child.ended);
  if (index < 0) return undefined;
  const [spare] = spares.splice(index, 1);
  clearTimeout(spare!.expiry);
  return spare!.child;
}

/** Keeps `child` as a spare for `keepMs`, or stops it when `max` spares are waiting already. */
export function parkProcess(child: PdfProcess, { max, keepMs }: { max: number; keepMs: number }): void {
  if (child.ended) return;
  dropEndedSpares();
  if (spares.length >= max) {
    void child.stop(new PdfError("closed"));
    return;
  }
  const spare = {
    child,
    expiry: setTimeout(() => {
      spares.splice(spares.indexOf(spare), 1);
      void child.stop(new PdfError("closed"));
    }, keepMs),
  };
  spare.expiry.unref();
  spares.push(spare);
}

export function spareProcesses(): number {
  dropEndedSpares();
  return spares.length;
}

/** A spare that died meanwhile (killed, out of memory) takes no place among the spares. */
function dropEndedSpares(): void {
  for (let i = spares.length - 1; i >= 0; i--) {
    const spare = spares[i]!;
    if (!spare.child.ended) continue;
    clearTimeout(spare.expiry);
    spares.splice(i, 1);
  }
}
