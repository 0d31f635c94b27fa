/**
 * Follow-up messages sent while a run works (SPEC §9). The engine drains them at its drain points;
 * whatever is still queued when the run ends is reported in `done` and sent by the client as the
 * next turn, so nothing is lost.
 */
export class InterruptQueue {
  private readonly queued: string[] = [];
  private closed = false;

  /** Returns false once the run has finished taking interrupts. */
  enqueue(text: string): boolean {
    if (this.closed) return false;
    this.queued.push(text);
    return true;
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
