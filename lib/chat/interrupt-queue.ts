import type { Interrupt } from "@/lib/protocol/run-events";

/** How much one run takes as interrupts over its whole life: a count and UTF-8 bytes in total. */
export interface InterruptLimits {
  maxCount: number;
  maxBytes: number;
}

/** Why an interrupt was refused: the run is over, or its caps are reached. */
export type InterruptRefusal = "closed" | "too_many" | "too_large";

export type EnqueueResult = { accepted: Interrupt } | { refused: InterruptRefusal };

/**
 * Interrupts: follow-up messages sent while a run works. Each gets an id when accepted, which the
 * client is told, the `interrupt` step carries and the stored user message takes, so the client
 * matches them by id. Each is stored as it is accepted (lib/db/interrupts.ts). The engine drains
 * them at its drain points; whatever is still pending when the run ends is reported in `done` and,
 * held by the server, becomes the next turn or stays as an unsent message, so nothing is lost.
 * Each ends up in the model's context and in the conversation, so a run takes a bounded number and
 * size of them, drained or not.
 */
export class InterruptQueue {
  private readonly pending: Interrupt[] = [];
  private closed = false;
  private accepted = 0;
  private acceptedBytes = 0;

  constructor(private readonly limits: InterruptLimits) {}

  /** `store` keeps an accepted interrupt (in the database) before it is queued; if it throws, nothing is. */
  enqueue(text: string, store: (interrupt: Interrupt) => void = () => {}): EnqueueResult {
    if (this.closed) return { refused: "closed" };
    if (this.accepted >= this.limits.maxCount) return { refused: "too_many" };
    const bytes = Buffer.byteLength(text, "utf8");
    if (this.acceptedBytes + bytes > this.limits.maxBytes) return { refused: "too_large" };
    const interrupt = { id: crypto.randomUUID(), text };
    store(interrupt);
    this.pending.push(interrupt);
    this.accepted++;
    this.acceptedBytes += bytes;
    return { accepted: interrupt };
  }

  drain(): Interrupt[] {
    return this.pending.splice(0);
  }

  /** Stops accepting and returns what was still pending. */
  close(): Interrupt[] {
    this.closed = true;
    return this.drain();
  }

  get size(): number {
    return this.pending.length;
  }
}
