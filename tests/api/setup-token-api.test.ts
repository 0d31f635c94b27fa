import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { GET as me } from "@/app/api/auth/me/route";
import { POST as signup } from "@/app/api/auth/signup/route";
import { announceSetupTokenAtStart } from "@/lib/auth/setup-token";
import { getDb } from "@/lib/db/client";
import { settings, users } from "@/lib/db/schema";
import { countUsers } from "@/lib/db/users";
import { getConfig, resetConfigForTests } from "@/lib/env-config";
import { setupFakeOllama } from "@/tests/fake-ollama/test-helpers";
import { client, PASSWORD, setupTokenFromLog } from "@/tests/support/accounts";
import { setupAppEnv } from "@/tests/support/app-env";

/**
 * The first sign-up of an instance with accounts makes the admin, who can start processes: it needs
 * the one-time setup token from the server log (docs/security.md, "The first account").
 */

const fake = setupFakeOllama();
setupAppEnv(fake);

beforeAll(() => {
  process.env.AUTH_MODE = "required";
  resetConfigForTests();
});
afterAll(() => {
  delete process.env.AUTH_MODE;
  delete process.env.SETUP_TOKEN;
  resetConfigForTests();
});

/** A fresh install: no account, no token issued yet. */
beforeEach(async () => {
  const db = await getDb();
  await db.delete(users);
  await db.delete(settings);
});

const signUp = (body: Record<string, unknown>) => signup(client().request("/api/auth/signup", "POST", body));

async function errorCode(response: Response): Promise<string> {
  return ((await response.json()) as { error: { code: string } }).error.code;
}

/** What the start prints, read back as an operator reads it. */
async function tokenPrintedAtStart(): Promise<string> {
  const lines: string[] = [];
  await announceSetupTokenAtStart(await getDb(), getConfig(), 0, (line) => lines.push(line));
  expect(lines).toHaveLength(1);
  const token = lines[0]?.match(/setup token: (\S+)$/)?.[1];
  expect(token).toMatch(/^[\w-]{43}$/);
  return token ?? "";
}

describe("the first sign-up needs the setup token from the server log", () => {
  it("without a token, or with a wrong one, the first sign-up is refused and no account is made", async () => {
    const token = await tokenPrintedAtStart();
    const wrong = [
      undefined,
      "",
      "guess",
      `${token.slice(0, -1)}${token.endsWith("A") ? "B" : "A"}`,
      token.toUpperCase() === token ? token.toLowerCase() : token.toUpperCase(),
      `${token} `.repeat(2),
      "x".repeat(200),
    ];
    for (const setupToken of wrong) {
      const response = await signUp({ username: "intruder", password: PASSWORD, setupToken });
      expect(response.status, String(setupToken)).toBe(403);
      expect(await errorCode(response)).toBe("forbidden:setup_token");
    }
    expect(await countUsers(await getDb())).toBe(0);
    // The token still works afterwards: failures do not burn it.
    expect((await signUp({ username: "owner", password: PASSWORD, setupToken: token })).status).toBe(201);
  });

  it("with the printed token the first account is the admin; the token is used up with it", async () => {
    const token = await tokenPrintedAtStart();
    const meBefore = (await (await me(client().request("/api/auth/me", "GET"))).json()) as Record<string, unknown>;
    expect(meBefore).toMatchObject({ firstUser: true, setupTokenRequired: true });
    const made = await signUp({ username: "owner", password: PASSWORD, setupToken: token });
    expect(made.status).toBe(201);
    expect(((await made.json()) as { user: { role: string } }).user.role).toBe("admin");
    const meAfter = (await (await me(client().request("/api/auth/me", "GET"))).json()) as Record<string, unknown>;
    expect(meAfter).toMatchObject({ firstUser: false, setupTokenRequired: false });
    // No hash is left to match, and the second account is a plain sign-up, closed by default.
    const rows = await (await getDb()).select().from(settings);
    expect(rows.map((row) => row.key)).not.toContain("setupTokenHashes");
    const again = await signUp({ username: "second", password: PASSWORD, setupToken: token });
    expect(again.status).toBe(403);
    expect(await errorCode(again)).toBe("forbidden:signup_closed");
  });

  it("only a hash is stored: the database does not hold the token", async () => {
    const token = await tokenPrintedAtStart();
    const stored = JSON.stringify(await (await getDb()).select().from(settings));
    expect(stored).not.toContain(token);
    expect(stored).toMatch(/[0-9a-f]{64}/);
  });

  it("each start prints a new token; any printed one works until the first account exists", async () => {
    const first = await tokenPrintedAtStart();
    const second = await tokenPrintedAtStart();
    expect(second).not.toBe(first);
    expect((await signUp({ username: "owner", password: PASSWORD, setupToken: first })).status).toBe(201);
  });

  it("with no token stored (the database replaced), the sign-up page issues one and prints it", async () => {
    const log = vi.spyOn(console, "log").mockImplementation(() => {});
    try {
      await me(client().request("/api/auth/me", "GET"));
      const printed = log.mock.calls.map(([line]) => String(line)).find((line) => line.startsWith("[setup]"));
      const token = printed?.match(/setup token: (\S+)$/)?.[1] ?? "";
      expect(token).not.toBe("");
      expect((await signUp({ username: "owner", password: PASSWORD, setupToken: token })).status).toBe(201);
    } finally {
      log.mockRestore();
    }
  });

  it("SETUP_TOKEN sets the token instead, and the log does not repeat it", async () => {
    process.env.SETUP_TOKEN = "operator-chosen-token-0001";
    resetConfigForTests();
    try {
      const lines: string[] = [];
      await announceSetupTokenAtStart(await getDb(), getConfig(), 0, (line) => lines.push(line));
      expect(lines.join("\n")).not.toContain("operator-chosen-token-0001");
      expect(lines.join("\n")).toContain("SETUP_TOKEN");
      expect((await signUp({ username: "owner", password: PASSWORD, setupToken: "wrong-token-00000001" })).status).toBe(
        403,
      );
      expect(
        (await signUp({ username: "owner", password: PASSWORD, setupToken: "operator-chosen-token-0001" })).status,
      ).toBe(201);
    } finally {
      delete process.env.SETUP_TOKEN;
      resetConfigForTests();
    }
  });

  it("two concurrent first sign-ups, each with a valid token: exactly one becomes the admin", async () => {
    for (let round = 0; round < 4; round++) {
      const db = await getDb();
      await db.delete(users);
      await db.delete(settings);
      // Two instances started, each printed its own token; two visitors race.
      const tokens = [await setupTokenFromLog(), await setupTokenFromLog()];
      const responses = await Promise.all(
        tokens.map((setupToken, i) => signUp({ username: `racer-${round}-${i}`, password: PASSWORD, setupToken })),
      );
      expect(responses.map((response) => response.status).sort()).toEqual([201, 403]);
      const made = await db.select().from(users);
      expect(made.map((user) => user.role)).toEqual(["admin"]);
    }
  });
});
