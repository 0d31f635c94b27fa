import { once } from "./once";

/**
 * The one counting semaphore, strictly first come, first served: a freed slot passes straight to
 * the longest waiter, and a newcomer never passes anyone waiting. Its size is given at each
 * acquire (read from the configuration there), so a changed limit applies at once: a raised one
 * lets those already waiting in first, in order; a lowered one takes effect as slots are freed.
 * A waiter whose signal aborts leaves the queue and rejects with the signal's reason.
 * Used for the parsing slots of PDFs, DOCX conversions and image decoding.
 */
export class Semaphore {
  #busy = 0;
  #limit = 1;
  readonly #waiting: (() => void)[] = [];

  /** Waits for a slot among `limit`; resolves with its release (calling it twice releases once). */
  async acquire(limit: number, signal?: AbortSignal): Promise<() => void> {
    signal?.throwIfAborted();
    this.#limit = limit;
    while (this.#busy < this.#limit && this.#waiting.length > 0) {
      this.#busy++;
      this.#waiting.shift()?.();
    }
    if (this.#busy < this.#limit) this.#busy++;
    else await this.#wait(signal);
    return once(() => {
      // The slot passes straight to the next waiter, unless the limit has been lowered meanwhile.
      const next = this.#busy <= this.#limit ? this.#waiting.shift() : undefined;
      if (next) next();
      else this.#busy--;
    });
  }

  /** Slots taken now. */
  get busy(): number {
    return this.#busy;
  }

  /** Callers waiting for a slot. */
  get waiting(): number {
    return this.#waiting.length;
  }

  /** Resolves once a freed slot is handed over (already counted as busy). */
  #wait(signal: AbortSignal | undefined): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      const admit = () => {
        signal?.removeEventListener("abort", leave);
        resolve();
      };
      const leave = () => {
        const index = this.#waiting.indexOf(admit);
        if (index >= 0) this.#waiting.splice(index, 1);
        reject(signal?.reason);
      };
      this.#waiting.push(admit);
      signal?.addEventListener("abort", leave, { once: true });
    });
  }
}
