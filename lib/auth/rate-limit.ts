/**
 * Sliding-window attempt counting per key (docs/security.md). An attempt counts from the moment it
 * is reserved, before any slow work such as hashing a password, so attempts made in parallel cannot
 * all pass the check; a successful attempt gives its reservation back. In memory: a restart forgets,
 * which is acceptable for one process on one VM.
 */
export class AttemptLimiter {
  private readonly attempts = new Map<string, number[]>();
  private lastSweep = 0;

  constructor(
    readonly limit: number,
    readonly windowMs: number,
  ) {}

  private recent(key: string, now: number): number[] {
    const kept = (this.attempts.get(key) ?? []).filter((at) => now - at < this.windowMs);
    if (kept.length > 0) this.attempts.set(key, kept);
    else this.attempts.delete(key);
    return kept;
  }

  /** Milliseconds until `key` may try again, or 0. */
  retryAfter(key: string, now = Date.now()): number {
    const recent = this.recent(key, now);
    if (recent.length < this.limit) return 0;
    return this.windowMs - (now - (recent[recent.length - this.limit] as number));
  }

  /**
   * Counts one attempt for `key` at `now`. Callers check `retryAfter` first in the same synchronous
   * step (no await in between), which is what makes the pair atomic.
   */
  reserve(key: string, now = Date.now()): void {
    this.sweep(now);
    this.attempts.set(key, [...this.recent(key, now), now]);
  }

  /** Gives back the attempt reserved at `at` (it succeeded). */
  release(key: string, at: number): void {
    const attempts = this.attempts.get(key);
    const index = attempts?.indexOf(at) ?? -1;
    if (!attempts || index < 0) return;
    attempts.splice(index, 1);
    if (attempts.length === 0) this.attempts.delete(key);
  }

  /** Forgets every attempt of `key`. */
  reset(key: string): void {
    this.attempts.delete(key);
  }

  /** Keys tracked now (for tests of the memory bound). */
  get size(): number {
    return this.attempts.size;
  }

  /** Drops keys whose attempts have all left the window, at most once per window. */
  private sweep(now: number): void {
    if (now - this.lastSweep < this.windowMs) return;
    this.lastSweep = now;
    for (const key of [...this.attempts.keys()]) this.recent(key, now);
  }
}
