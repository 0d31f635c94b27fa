/**
 * Run starts take turns on the event loop (docs/architecture.md, "One turn"). Starting a run is tens
 * of milliseconds of CPU, most of it in chains of promises that are already resolved: forty starts
 * arriving together would run as one unbroken stretch of the event loop, and every answer streaming
 * meanwhile would stall for all of it. A start awaits `turn()` before each stretch of its work; turns
 * are given one per pass of the event loop, in order, so the loop reads and writes the other runs'
 * streams between two of them. A turn is not held across I/O: a start waiting for Ollama holds up
 * nobody.
 */
export class StartTurns {
  private readonly waiting: Array<() => void> = [];
  private scheduled = false;

  /** Resolves in a later pass of the event loop, after the turns asked for before. */
  turn(): Promise<void> {
    return new Promise((resolve) => {
      this.waiting.push(resolve);
      this.schedule();
    });
  }

  private schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    // An immediate queued while immediates run waits for the next pass, after the I/O poll.
    setImmediate(() => {
      this.scheduled = false;
      this.waiting.shift()?.();
      if (this.waiting.length > 0) this.schedule();
    });
  }
}
