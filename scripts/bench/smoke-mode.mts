/**
 * BENCH_SMOKE=1: every benchmark runs once at tiny sizes, in seconds, so `npm test` notices one that
 * no longer runs (docs/benchmarks.md, "Smoke runs"). Its figures mean nothing then: a smoke run
 * checks that the benchmark still runs to its end, never what it measures.
 */
export const SMOKE = process.env.BENCH_SMOKE === "1";

/** `full` for a measurement, `smoke` for a smoke run. */
export function sized<T>(full: T, smoke: T): T {
  return SMOKE ? smoke : full;
}

/** A size from the environment (`name`), else `full`, or `smoke` in a smoke run. */
export function sizeFromEnv(name: string, full: number, smoke: number): number {
  const value = process.env[name];
  return value === undefined || SMOKE ? sized(full, smoke) : Number(value);
}
