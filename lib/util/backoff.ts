/**
 * The one exponential backoff: how long to wait before trying again after `failures` failures in a
 * row. Used by the Ollama pool's health probes, the live run's busy-database retries, the unended
 * runs' retries, the cluster's LISTEN reconnects and the MCP hub's reconnects.
 */

export interface Backoff {
  /** The wait after the first failure; each further failure doubles it. */
  firstMs: number;
  /** The longest wait (none by default, beyond what a timer can wait). */
  maxMs?: number;
  /** Up to this fraction (0 to 1) of each wait is taken off at random, so retries spread out (0 by default). */
  jitter?: number;
  /** A number in [0, 1), as `Math.random` gives (tests pass their own). */
  random?: () => number;
}

/** The longest delay `setTimeout` honours; a longer one fires at once. */
export const MAX_TIMER_MS = 2 ** 31 - 1;

/** The wait before retry number `retry` (0 after the first failure): `firstMs · 2^retry`, capped, less its jitter. */
export function backoffDelay(
  retry: number,
  { firstMs, maxMs = MAX_TIMER_MS, jitter = 0, random = Math.random }: Backoff,
): number {
  const delay = Math.min(firstMs * 2 ** retry, maxMs, MAX_TIMER_MS);
  if (jitter <= 0) return delay;
  return delay * (1 - Math.min(jitter, 1) * random());
}
