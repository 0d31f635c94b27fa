import type { Interrupt } from "@/lib/protocol/run-events";

/** How much one run takes as interrupts over its whole life: a count and UTF-8 bytes in total. */
export interface InterruptLimits {
  maxCount: number;
  maxBytes: number;
}

/** Why an interrupt was refused: the run is over, or its caps are reached. */
export type InterruptRefusal = "closed" | "too_many" | "too_large";

export type EnqueueResult = { accepted: Interrupt } | { refused: InterruptRefusal };

/** Where accepted interrupts are held (the database): stored before they are queued. */
export interface InterruptStorage {
  store(interrupt: Interrupt): Promise<void>;
  /** An interrupt stored for a run that ended before it was queued. */
  remove(interrupt: Interrupt): Promise<void>;
}

const UNSTORED: InterruptStorage = { store: async () => {}, remove: async () => {} };

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

  /**
   * Accepts an interrupt within the run's caps, stores it (`storage`, the database) and only then
   * queues it, so the run never takes one whose row is not there yet. Its place within the caps is
   * taken before the store is awaited, so follow-ups sent together cannot all pass them; a failed
   * store gives it back and queues nothing. A run that ended while it was stored refuses it
   * ("closed") and its row is removed: it was neither taken nor handed to the next turn.
   */
  async enqueue(
    text: string,
    storage: InterruptStorage = UNSTORED,
    id: string = crypto.randomUUID(),
  ): Promise<EnqueueResult> {
    if (this.closed) return { refused: "closed" };
    if (this.accepted >= this.limits.maxCount) return { refused: "too_many" };
    const bytes = Buffer.byteLength(text, "utf8");
    if (this.acceptedBytes + bytes > this.limits.maxBytes) return { refused: "too_large" };
    const interrupt = { id, text };
    this.accepted++;
    this.acceptedBytes += bytes;
    try {
      await storage.store(interrupt);
    } catch (error) {
      this.accepted--;
      this.acceptedBytes -= bytes;
      throw error;
    }
    if (this.closed) {
      await storage.remove(interrupt);
      return { refused: "closed" };
    }
    this.pending.push(interrupt);
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
