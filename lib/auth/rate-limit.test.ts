import { describe, expect, it } from "vitest";
import { AttemptLimiter } from "./rate-limit";

describe("attempt limiter", () => {
  it("refuses a key after the limit within the window and frees it when the window passes", () => {
    const limiter = new AttemptLimiter(3, 1000);
    for (let i = 0; i < 3; i++) limiter.reserve("k", 100 * i);
    expect(limiter.retryAfter("k", 250)).toBe(750);
    expect(limiter.retryAfter("k", 1001)).toBe(0);
    expect(limiter.retryAfter("other", 250)).toBe(0);
  });

  it("counts an attempt from its reservation, before it has an outcome", () => {
    const limiter = new AttemptLimiter(2, 1000);
    limiter.reserve("k", 0);
    limiter.reserve("k", 0);
    expect(limiter.retryAfter("k", 0)).toBe(1000);
  });

  it("a released reservation no longer counts; releasing twice gives back only one", () => {
    const limiter = new AttemptLimiter(2, 1000);
    limiter.reserve("k", 5);
    limiter.reserve("k", 5);
    limiter.release("k", 5);
    expect(limiter.retryAfter("k", 10)).toBe(0);
    limiter.release("k", 5);
    limiter.release("k", 5);
    limiter.reserve("k", 20);
    limiter.reserve("k", 20);
    expect(limiter.retryAfter("k", 20)).toBeGreaterThan(0);
  });

  it("forgets keys whose attempts have all left the window (memory stays bounded by one window)", () => {
    const limiter = new AttemptLimiter(5, 1000);
    for (let i = 0; i < 100; i++) limiter.reserve(`made-up-${i}`, 0);
    expect(limiter.size).toBe(100);
    limiter.reserve("later", 2000);
    expect(limiter.size).toBe(1);
  });
});
