import { describe, expect, it } from "vitest";
import { AppError } from "@/lib/errors";
import { createLoginThrottle, reserveLogin } from "./login-throttle";

const limits = { LOGIN_FAILURES_PER_ACCOUNT: 2, LOGIN_FAILURES_PER_ADDRESS: 3, LOGIN_WINDOW_MIN: 15 };

function refusal(run: () => unknown): AppError {
  try {
    run();
  } catch (error) {
    if (error instanceof AppError) return error;
    throw error;
  }
  throw new Error("expected a refusal");
}

describe("sign-in throttle", () => {
  it("reserves before the outcome: attempts beyond the account's limit are refused while earlier ones are in flight", () => {
    const throttle = createLoginThrottle(limits);
    reserveLogin(throttle, { account: "alice", address: "a" }, 0);
    reserveLogin(throttle, { account: "alice", address: "b" }, 0);
    const refused = refusal(() => reserveLogin(throttle, { account: "alice", address: "c" }, 0));
    expect(refused.code).toBe("rate_limited:login");
    expect(refused.status).toBe(429);
    expect(refused.details).toEqual({ retryAfterSeconds: 15 * 60 });
  });

  it("an account over its limit refuses only itself; an address over its limit refuses only itself", () => {
    const throttle = createLoginThrottle(limits);
    for (const address of ["a", "b"]) reserveLogin(throttle, { account: "alice", address }, 0);
    expect(() => reserveLogin(throttle, { account: "bob", address: "a" }, 0)).not.toThrow();
    for (const account of ["x", "y", "z"]) reserveLogin(throttle, { account, address: "c" }, 0);
    expect(() => reserveLogin(throttle, { account: "bob", address: "c" }, 0)).toThrow(AppError);
    expect(() => reserveLogin(throttle, { account: "bob", address: "d" }, 0)).not.toThrow();
  });

  it("a success forgets the account's failures and gives the address its attempt back", () => {
    const throttle = createLoginThrottle(limits);
    reserveLogin(throttle, { account: "alice", address: "a" }, 0);
    reserveLogin(throttle, { account: "alice", address: "a" }, 1).succeeded();
    expect(throttle.account.retryAfter("alice", 2)).toBe(0);
    reserveLogin(throttle, { account: "bob", address: "a" }, 2);
    expect(throttle.address.retryAfter("a", 3)).toBe(0);
  });
});
