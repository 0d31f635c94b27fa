import "server-only";
import { type Config, getConfig } from "@/lib/env-config";
import { AppError } from "@/lib/errors";
import { keyedSingleton } from "@/lib/util/process-singleton";
import { AttemptLimiter } from "./rate-limit";

/**
 * Sign-in throttling (docs/security.md): failed attempts are counted per account and per client
 * address. An account over its limit refuses every address, but only for that account; an address
 * over its limit refuses every account, but only from that address. Wrong guesses on made-up names
 * therefore only ever slow down the address that makes them.
 */
export interface LoginThrottle {
  account: AttemptLimiter;
  address: AttemptLimiter;
}

export interface LoginAttempt {
  /** The password was right: the attempt no longer counts, and the account's failures are forgotten. */
  succeeded(): void;
}

export function createLoginThrottle(
  config: Pick<Config, "LOGIN_FAILURES_PER_ACCOUNT" | "LOGIN_FAILURES_PER_ADDRESS" | "LOGIN_WINDOW_MIN">,
): LoginThrottle {
  const windowMs = config.LOGIN_WINDOW_MIN * 60_000;
  return {
    account: new AttemptLimiter(config.LOGIN_FAILURES_PER_ACCOUNT, windowMs),
    address: new AttemptLimiter(config.LOGIN_FAILURES_PER_ADDRESS, windowMs),
  };
}

/**
 * Reserves one sign-in attempt before the password is checked, or throws a 429 with Retry-After.
 * Synchronous on purpose: parallel requests are counted one by one, so at most the limit of them
 * ever reach the (slow) password hash. A failed attempt keeps its reservation as the failure.
 */
export function reserveLogin(
  throttle: LoginThrottle,
  { account, address }: { account: string; address: string },
  now = Date.now(),
): LoginAttempt {
  const wait = Math.max(throttle.account.retryAfter(account, now), throttle.address.retryAfter(address, now));
  if (wait > 0) {
    throw new AppError("rate_limited:login", "Too many failed sign-ins. Try again later.", {
      details: { retryAfterSeconds: Math.ceil(wait / 1000) },
      retryable: true,
    });
  }
  throttle.account.reserve(account, now);
  throttle.address.reserve(address, now);
  return {
    succeeded() {
      throttle.account.reset(account);
      throttle.address.release(address, now);
    },
  };
}

const processThrottle = keyedSingleton<LoginThrottle>("loginThrottle");

/** The process's throttle, rebuilt only when its limits change (tests change the environment). */
export function getLoginThrottle(config = getConfig()): LoginThrottle {
  const key = `${config.LOGIN_FAILURES_PER_ACCOUNT}/${config.LOGIN_FAILURES_PER_ADDRESS}/${config.LOGIN_WINDOW_MIN}`;
  return processThrottle(key, () => createLoginThrottle(config));
}
