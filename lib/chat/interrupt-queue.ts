/** How much one run takes as follow-ups over its whole life: a count and UTF-8 bytes in total. */
export interface InterruptLimits {
  maxCount: number;
  maxBytes: number;
}

/** What became of a follow-up: queued, or refused because the run is over or its caps are reached. */
export type EnqueueResult = "queued" | "closed" | "too_many" | "too_large";

/**
 * Follow-up messages sent while a run works. The engine drains them at its drain points;
 * whatever is still queued when the run ends is reported in `done` and sent by the client as the
 * next turn, so nothing is lost. Each follow-up ends up in the model's context and in the
 * conversation, so a run takes a bounded number and size of them, drained or not.
 */
export class InterruptQueue {
  private readonly queued: string[] = [];
  private closed = false;
  private accepted = 0;
  private acceptedBytes = 0;

  constructor(private readonly limits: InterruptLimits) {}

  enqueue(text: string): EnqueueResult {
    if (this.closed) return "closed";
    if (this.accepted >= this.limits.maxCount) return "too_many";
    const bytes = Buffer.byteLength(text, "utf8");
    if (this.acceptedBytes + bytes > this.limits.maxBytes) return "too_large";
    this.queued.push(text);
    this.accepted++;
    this.acceptedBytes += bytes;
    return "queued";
  }

  drain(): string[] {
    return this.queued.splice(0);
  }

  /** Stops accepting and returns what was still queued. */
  close(): string[] {
    this.closed = true;
    return this.drain();
  }

  get size(): number {
    return this.queued.length;
  }
}
