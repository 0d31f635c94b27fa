import type { AnswerPart } from "@/lib/protocol/run-events";

/** The least time between two saves of the answer streamed so far. */
const PARTIAL_SAVE_MS = 1000;

export interface AnswerStreamOptions {
  /** Sends an `answer` event; `store` is false for deltas, which only go out live. */
  emit: (part: AnswerPart, store: boolean) => void;
  /** Queues a save of the text so far: crash recovery and a shutdown keep it. */
  savePartial: (text: string) => void;
  /** The least time between two partial saves (a second by default). */
  saveEveryMs?: number;
  now?: () => number;
}

/**
 * The run's answer as it streams, with one owner: every `answer` part of the turn, direct or
 * synthesised, goes through `push` (a `start` begins the text again), and the text so far is
 * saved at most once per `saveEveryMs` (`runs.partial_answer`, docs/architecture.md, "One turn").
 * Whoever ends the run — the run itself, a shutdown, an account's removal — stores `text`.
 */
export class AnswerStream {
  private answer = "";
  private begun = false;
  private readonly now: () => number;
  private lastSave: number;

  constructor(private readonly options: AnswerStreamOptions) {
    this.now = options.now ?? Date.now;
    this.lastSave = this.now();
  }

  /** The interval between partial saves counts from now: the run has started (its slot was reserved earlier). */
  startSaving(): void {
    this.lastSave = this.now();
  }

  /** What the model has written of the answer so far (empty before it starts). */
  get text(): string {
    return this.answer;
  }

  /** Whether an answer began: its end is announced with `answer done`. */
  get started(): boolean {
    return this.begun;
  }

  push(part: AnswerPart): void {
    if (part.status === "start") {
      this.answer = "";
      this.begun = true;
      this.options.emit(part, true);
      return;
    }
    if (part.status !== "delta") return;
    this.answer += part.content;
    this.options.emit(part, false);
    const now = this.now();
    if (now - this.lastSave > (this.options.saveEveryMs ?? PARTIAL_SAVE_MS)) {
      this.lastSave = now;
      this.options.savePartial(this.answer);
    }
  }

  /** The answer is over: an answer that began gets its `done`. */
  finish(): void {
    if (this.begun) this.options.emit({ status: "done" }, true);
  }
}
