import { describe, expect, it } from "vitest";
import { backoffDelay, MAX_TIMER_MS } from "./backoff";

describe("backoffDelay", () => {
  it("starts at the first wait and doubles with each further failure", () => {
    expect([0, 1, 2, 3].map((retry) => backoffDelay(retry, { firstMs: 250 }))).toEqual([250, 500, 1000, 2000]);
  });

  it("never waits longer than the maximum", () => {
    const waits = [0, 1, 2, 3, 4, 5].map((retry) => backoffDelay(retry, { firstMs: 1000, maxMs: 5000 }));
    expect(waits).toEqual([1000, 2000, 4000, 5000, 5000, 5000]);
  });

  it("without a maximum never waits longer than a timer can (a longer delay would fire at once)", () => {
    expect(backoffDelay(60, { firstMs: 1000 })).toBe(MAX_TIMER_MS);
    expect(backoffDelay(2000, { firstMs: 1000 })).toBe(MAX_TIMER_MS);
  });

  it("jitter takes off at most its fraction of the wait, and nothing when the draw is 0", () => {
    const options = { firstMs: 1000, maxMs: 8000, jitter: 0.25 };
    expect(backoffDelay(2, { ...options, random: () => 0 })).toBe(4000);
    expect(backoffDelay(2, { ...options, random: () => 0.999_999 })).toBeGreaterThan(3000);
    expect(backoffDelay(2, { ...options, random: () => 0.5 })).toBe(3500);
    for (let draw = 0; draw < 200; draw++) {
      const wait = backoffDelay(5, { ...options, random: Math.random });
      expect(wait).toBeGreaterThan(6000);
      expect(wait).toBeLessThanOrEqual(8000);
    }
  });

  it("jitter of more than 1 never makes a wait negative", () => {
    expect(backoffDelay(0, { firstMs: 100, jitter: 3, random: () => 0.999 })).toBeGreaterThan(0);
  });
});
