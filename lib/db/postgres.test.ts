import { describe, expect, it } from "vitest";
import { isPostgresUnreachable } from "./postgres";

/** Which PostgreSQL failures are "out of reach for now" (503, retry) and which are bugs (500). */

const withCode = (code: string, message = "failed") => Object.assign(new Error(message), { code });
/** How drizzle wraps a driver error. */
const wrapped = (cause: Error) => Object.assign(new Error("Failed query: select 1"), { cause });

describe("isPostgresUnreachable", () => {
  it.each([
    ["a refused connection", withCode("ECONNREFUSED")],
    ["a reset connection", withCode("ECONNRESET")],
    ["a host that does not resolve", withCode("ENOTFOUND")],
    ["the server shutting down (admin_shutdown)", withCode("57P01")],
    ["the server starting (cannot_connect_now)", withCode("57P03")],
    ["too many connections", withCode("53300")],
    ["a connection exception", withCode("08006")],
    ["no free connection in the pool in time", new Error("timeout exceeded when trying to connect")],
    ["a connection that ended mid-query", new Error("Connection terminated unexpectedly")],
  ])("%s is out of reach for now, also as the cause drizzle wraps", (_, error) => {
    expect(isPostgresUnreachable(error)).toBe(true);
    expect(isPostgresUnreachable(wrapped(error))).toBe(true);
  });

  it.each([
    ["a unique violation", withCode("23505")],
    ["a syntax error", withCode("42601")],
    ["a missing table", withCode("42P01")],
    ["SQLite's busy", withCode("SQLITE_BUSY")],
    ["anything else", new Error("boom")],
  ])("%s is not", (_, error) => {
    expect(isPostgresUnreachable(wrapped(error))).toBe(false);
  });
});
