import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PATCH as patchSignup } from "@/app/api/admin/settings/route";
import { POST as login } from "@/app/api/auth/login/route";
import { GET as me } from "@/app/api/auth/me/route";
import { POST as changePassword } from "@/app/api/auth/password/route";
import { GET as list } from "@/app/api/conversations/route";
import { resetConfigForTests } from "@/lib/env-config";
import { setupFakeOllama } from "@/tests/fake-ollama/test-helpers";
import { client, signIn, signUp, type TestClient } from "@/tests/support/accounts";
import { expectApiError, jsonRequest, setupAppEnv } from "@/tests/support/app-env";

const fake = setupFakeOllama();
setupAppEnv(fake);

const PASSWORD = "correct horse battery";
const ACCOUNT_LIMIT = 3;

beforeAll(async () => {
  process.env.AUTH_MODE = "required";
  process.env.LOGIN_FAILURES_PER_ACCOUNT = String(ACCOUNT_LIMIT);
  process.env.LOGIN_FAILURES_PER_ADDRESS = "100";
  resetConfigForTests();
  const admin = await signUp("admin-pw");
  await patchSignup(admin.request("/api/admin/settings", "PATCH", { signupOpen: true }));
});
afterAll(() => {
  delete process.env.AUTH_MODE;
  delete process.env.LOGIN_FAILURES_PER_ACCOUNT;
  delete process.env.LOGIN_FAILURES_PER_ADDRESS;
  resetConfigForTests();
});

const change = (who: TestClient, body: unknown, headers?: Record<string, string>) =>
  changePassword(who.request("/api/auth/password", "POST", body, headers));

const loginStatus = async (username: string, password: string) =>
  (await login(client().request("/api/auth/login", "POST", { username, password }))).status;

/** Whether the client's session is still signed in. */
const signedIn = async (who: TestClient) => (await list(who.request("/api/conversations", "GET"))).status === 200;

describe("POST /api/auth/password changes the signed-in user's password", () => {
  it("the new password signs in and the old one no longer does", async () => {
    const who = await signUp("pw-basic");
    const response = await change(who, { currentPassword: PASSWORD, newPassword: "a brand new secret" });
    expect(response.status).toBe(200);
    expect(((await response.json()) as { user: { username: string } }).user.username).toBe("pw-basic");
    expect(await loginStatus("pw-basic", "a brand new secret")).toBe(200);
    expect(await loginStatus("pw-basic", PASSWORD)).toBe(401);
  });

  it("signs out the user's other sessions; this browser stays signed in with a fresh session", async () => {
    const here = await signUp("pw-sessions");
    const elsewhere = await signIn("pw-sessions");
    const other = await signUp("pw-bystander");
    const response = await change(here, { currentPassword: PASSWORD, newPassword: "another long secret" });
    expect(response.status).toBe(200);
    const fresh = client((response.headers.get("set-cookie") ?? "").split(";")[0]);
    expect(fresh.cookie).not.toBe(here.cookie);

    expect(await signedIn(elsewhere)).toBe(false);
    expect(await signedIn(here)).toBe(false);
    expect(await signedIn(fresh)).toBe(true);
    expect(await signedIn(other)).toBe(true);
  });

  it("accepts a unicode password, compared in the same normal form as at sign-in", async () => {
    const who = await signUp("pw-unicode");
    const newPassword = "パスワード🔑 ünïcödé";
    expect((await change(who, { currentPassword: PASSWORD, newPassword })).status).toBe(200);
    expect(await loginStatus("pw-unicode", newPassword)).toBe(200);
    expect(await loginStatus("pw-unicode", newPassword.normalize("NFD"))).toBe(200);
    expect(await loginStatus("pw-unicode", "パスワード🔑 unicode")).toBe(401);
  });
});

describe("a refused password change changes nothing", () => {
  it("a wrong current password is 403 forbidden:current_password and keeps the password and sessions", async () => {
    const who = await signUp("pw-wrong");
    await expectApiError(
      await change(who, { currentPassword: "not my password", newPassword: "whatever it is now" }),
      403,
      "forbidden:current_password",
    );
    expect(await signedIn(who)).toBe(true);
    expect(await loginStatus("pw-wrong", PASSWORD)).toBe(200);
  });

  it("a new password that breaks the account rules is 400, checked before the current one", async () => {
    const who = await signUp("pw-rules");
    for (const newPassword of ["short", "x".repeat(201), 12345678, ""]) {
      const response = await change(who, { currentPassword: PASSWORD, newPassword });
      const message = await expectApiError(response, 400, "bad_request:validation");
      expect(message).toContain("newPassword");
    }
    await expectApiError(await change(who, { newPassword: "long enough new" }), 400, "bad_request:validation");
    expect(await loginStatus("pw-rules", PASSWORD)).toBe(200);
  });
});

describe("wrong current passwords count toward the sign-in limit", () => {
  it("after LOGIN_FAILURES_PER_ACCOUNT wrong ones, the change and the sign-in are refused with 429", async () => {
    const who = await signUp("pw-guess");
    for (let i = 0; i < ACCOUNT_LIMIT; i++) {
      await expectApiError(
        await change(who, { currentPassword: `guess ${i}`, newPassword: "the attacker's own" }),
        403,
        "forbidden:current_password",
      );
    }
    const refused = await change(who, { currentPassword: PASSWORD, newPassword: "the attacker's own" });
    await expectApiError(refused, 429, "rate_limited:login");
    expect(await loginStatus("pw-guess", PASSWORD)).toBe(429);
  });
});

describe("only a signed-in user of this site changes a password", () => {
  it("without a session it is 401", async () => {
    await expectApiError(
      await change(client(), { currentPassword: PASSWORD, newPassword: "long enough new" }),
      401,
      "unauthorized:session",
    );
  });

  it("from another origin it is 403 and the password stays", async () => {
    const who = await signUp("pw-csrf");
    const response = await change(
      who,
      { currentPassword: PASSWORD, newPassword: "set by another site" },
      { origin: "https://evil.example" },
    );
    await expectApiError(response, 403, "forbidden:origin");
    expect(await loginStatus("pw-csrf", "set by another site")).toBe(401);
  });

  it("without accounts (single-user on loopback) it says there is no password to change", async () => {
    process.env.AUTH_MODE = "off";
    resetConfigForTests();
    try {
      const response = await changePassword(
        jsonRequest("/api/auth/password", "POST", { currentPassword: "a", newPassword: "long enough new" }),
      );
      await expectApiError(response, 400, "bad_request:accounts_off");
      const auth = (await (await me(jsonRequest("/api/auth/me", "GET"))).json()) as { accountsRequired: boolean };
      expect(auth.accountsRequired).toBe(false);
    } finally {
      process.env.AUTH_MODE = "required";
      resetConfigForTests();
    }
  });
});
