import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { POST as login } from "@/app/api/auth/login/route";
import { POST as signup } from "@/app/api/auth/signup/route";
import { createUser } from "@/lib/auth/accounts";
import { PEER_HEADER as PEER } from "@/lib/auth/peer-stamp.mjs";
import { closeDbForTests, getDb } from "@/lib/db/client";
import { resetConfigForTests } from "@/lib/env-config";
import { ORIGIN } from "@/tests/support/accounts";

// Counts password checks and hashes: the expensive work that limits must keep attackers from reaching.
const checks = vi.hoisted(() => ({ count: 0, hashes: 0 }));
vi.mock("@/lib/auth/password", async (importOriginal) => {
  const actual = await importOriginal<typeof import("@/lib/auth/password")>();
  return {
    ...actual,
    verifyPassword: (password: string, stored: string) => {
      checks.count++;
      return actual.verifyPassword(password, stored);
    },
    hashPassword: (password: string) => {
      checks.hashes++;
      return actual.hashPassword(password);
    },
  };
});

const PASSWORD = "correct horse battery";
// Addresses here are header values only (nothing is sent anywhere): the server's stamp of the TCP
// peer (PEER), as lib/auth/peer-stamp.mjs sets it, and what a client or proxy claims.
const UNTRUSTED_PEER = "203.0.113.5";
// Small limits keep the number of (deliberately slow) password hashes down.
const ACCOUNT_LIMIT = 3;
const ADDRESS_LIMIT = 8;

let dir = "";
beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "ollama-web-login-"));
  process.env.DATA_DIR = dir;
  process.env.AUTH_MODE = "required";
  process.env.LOGIN_FAILURES_PER_ACCOUNT = String(ACCOUNT_LIMIT);
  process.env.LOGIN_FAILURES_PER_ADDRESS = String(ADDRESS_LIMIT);
  resetConfigForTests();
  await closeDbForTests();
  for (const username of ["admin", "alice", "bob", "carol", "dave", "erin"]) {
    await createUser(await getDb(), { username, password: PASSWORD, byAdmin: true });
  }
});
afterAll(async () => {
  await closeDbForTests();
  fs.rmSync(dir, { recursive: true, force: true });
  delete process.env.AUTH_MODE;
  delete process.env.LOGIN_FAILURES_PER_ACCOUNT;
  delete process.env.LOGIN_FAILURES_PER_ADDRESS;
  resetConfigForTests();
});
beforeEach(() => {
  checks.count = 0;
  checks.hashes = 0;
});

function attempt(username: string, password: string, headers: Record<string, string>): Promise<Response> {
  return login(
    new Request(`${ORIGIN}/api/auth/login`, {
      method: "POST",
      headers: { "content-type": "application/json", origin: ORIGIN, ...headers },
      body: JSON.stringify({ username, password }),
    }),
  );
}

const statuses = (responses: Response[]) => responses.map((response) => response.status);
const count = (values: number[], value: number) => values.filter((v) => v === value).length;

describe("sign-in throttling", () => {
  it("40 parallel wrong passwords for one account: only LOGIN_FAILURES_PER_ACCOUNT of them reach the password check, the rest get 429 with Retry-After", async () => {
    const responses = await Promise.all(
      Array.from({ length: 40 }, () => attempt("alice", "wrong password", { [PEER]: "198.51.100.1" })),
    );
    expect(checks.count).toBe(ACCOUNT_LIMIT);
    expect(count(statuses(responses), 401)).toBe(ACCOUNT_LIMIT);
    const refused = responses.filter((response) => response.status === 429);
    expect(refused).toHaveLength(40 - ACCOUNT_LIMIT);
    for (const response of refused) expect(Number(response.headers.get("retry-after"))).toBeGreaterThan(0);
  });

  it("40 parallel wrong passwords on made-up names from one address: only LOGIN_FAILURES_PER_ADDRESS of them reach the password check", async () => {
    const responses = await Promise.all(
      Array.from({ length: 40 }, (_, i) => attempt(`nobody${i}`, "wrong password", { [PEER]: "198.51.100.2" })),
    );
    expect(checks.count).toBe(ADDRESS_LIMIT);
    expect(count(statuses(responses), 401)).toBe(ADDRESS_LIMIT);
    expect(count(statuses(responses), 429)).toBe(40 - ADDRESS_LIMIT);
  });

  it("rotating X-Forwarded-For and X-Real-IP from an untrusted peer does not reset the per-address limit", async () => {
    for (let i = 0; i < ADDRESS_LIMIT; i++) {
      const forged = `10.0.${i}.1`;
      const response = await attempt(`made-up-${i}`, "wrong password", {
        [PEER]: UNTRUSTED_PEER,
        "x-forwarded-for": forged,
        "x-real-ip": forged,
      });
      expect(response.status).toBe(401);
    }
    const next = await attempt("carol", PASSWORD, {
      [PEER]: UNTRUSTED_PEER,
      "x-forwarded-for": "10.0.99.1",
      "x-real-ip": "10.0.99.1",
    });
    expect(next.status).toBe(429);
  });

  it("behind a trusted proxy, the right-most untrusted X-Forwarded-For address is the client: a forged left part changes nothing", async () => {
    const viaProxy = (client: string, forged: string) => ({
      [PEER]: "127.0.0.1",
      "x-forwarded-for": `${forged}, ${client}`,
    });
    for (let i = 0; i < ADDRESS_LIMIT; i++) {
      expect((await attempt(`ghost-${i}`, "wrong password", viaProxy("192.0.2.10", `10.1.${i}.1`))).status).toBe(401);
    }
    expect((await attempt("dave", PASSWORD, viaProxy("192.0.2.10", "10.1.99.1"))).status).toBe(429);
    // Another client behind the same proxy has its own limit.
    expect((await attempt("dave", PASSWORD, viaProxy("192.0.2.11", "10.1.99.1"))).status).toBe(200);
  });

  it("a locked account blocks only itself: account B still signs in, from anywhere", async () => {
    await Promise.all(Array.from({ length: 40 }, () => attempt("bob", "wrong password", { [PEER]: "198.51.100.3" })));
    expect((await attempt("bob", PASSWORD, { [PEER]: "198.51.100.4" })).status).toBe(429);
    expect((await attempt("erin", PASSWORD, { [PEER]: "198.51.100.4" })).status).toBe(200);
  });

  it("wrong sign-ins on made-up names never lock a real user out", async () => {
    for (let i = 0; i < 3 * ADDRESS_LIMIT; i++)
      await attempt(`invented-${i}`, "wrong password", { [PEER]: "198.51.100.5" });
    expect((await attempt("admin", PASSWORD, { [PEER]: "198.51.100.6" })).status).toBe(200);
  });

  it("a successful sign-in does not count against its address", async () => {
    for (let i = 0; i < ADDRESS_LIMIT + 2; i++) {
      expect((await attempt("admin", PASSWORD, { [PEER]: "198.51.100.7" })).status).toBe(200);
    }
  });

  it("an IPv6 client's whole /64 shares one limit", async () => {
    for (let i = 0; i < ADDRESS_LIMIT; i++) {
      await attempt(`v6-${i}`, "wrong password", { [PEER]: `2001:db8:1:2::${(i + 1).toString(16)}` });
    }
    expect((await attempt("erin", PASSWORD, { [PEER]: "2001:db8:1:2:ffff::1" })).status).toBe(429);
    expect((await attempt("erin", PASSWORD, { [PEER]: "2001:db8:1:3::1" })).status).toBe(200);
  });
});

describe("sign-up", () => {
  it("while sign-up is closed, a sign-up is refused before its password is hashed", async () => {
    const response = await signup(
      new Request(`${ORIGIN}/api/auth/signup`, {
        method: "POST",
        headers: { "content-type": "application/json", origin: ORIGIN },
        body: JSON.stringify({ username: "newcomer", password: PASSWORD }),
      }),
    );
    expect(response.status).toBe(403);
    expect(checks.hashes).toBe(0);
  });
});
