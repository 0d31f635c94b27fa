import { afterAll, beforeAll, expect } from "vitest";
import { PATCH as patchSettings } from "@/app/api/admin/settings/route";
import { POST as login } from "@/app/api/auth/login/route";
import { POST as signup } from "@/app/api/auth/signup/route";
import { createSession, createUser } from "@/lib/auth/accounts";
import { issueSetupToken } from "@/lib/auth/setup-token";
import { SESSION_COOKIE } from "@/lib/auth/viewer";
import { getDb } from "@/lib/db/client";
import { countUsers } from "@/lib/db/users";
import { getConfig, resetConfigForTests } from "@/lib/env-config";

/** A browser-like client: keeps the session cookie and sends a same-origin Origin header. */
export interface TestClient {
  cookie: string;
  request(url: string, method: string, body?: unknown, headers?: Record<string, string>): Request;
}

export const ORIGIN = "http://127.0.0.1";

export function client(cookie = ""): TestClient {
  return {
    cookie,
    request(url, method, body, headers = {}) {
      return new Request(`${ORIGIN}${url}`, {
        method,
        headers: {
          "content-type": "application/json",
          origin: ORIGIN,
          ...(this.cookie ? { cookie: this.cookie } : {}),
          ...headers,
        },
        body: body === undefined ? undefined : typeof body === "string" ? body : JSON.stringify(body),
      });
    },
  };
}

export function cookieFrom(response: Response): string {
  const header = response.headers.get("set-cookie") ?? "";
  return header.split(";")[0] ?? "";
}

export const PASSWORD = "correct horse battery";

/** The setup token the server log shows while nobody has an account, as an operator would copy it. */
export async function setupTokenFromLog(): Promise<string> {
  return issueSetupToken(await getDb(), getConfig());
}

/** Signs up through the route; the first account is given a setup token, as its operator would. */
export async function signUp(username: string, password = PASSWORD): Promise<TestClient> {
  const first = (await countUsers(await getDb())) === 0;
  const setupToken = first ? await setupTokenFromLog() : undefined;
  const response = await signup(client().request("/api/auth/signup", "POST", { username, password, setupToken }));
  expect(response.status).toBe(201);
  return client(cookieFrom(response));
}

export async function signIn(username: string, password = PASSWORD): Promise<TestClient> {
  const response = await login(client().request("/api/auth/login", "POST", { username, password }));
  expect(response.status).toBe(200);
  return client(cookieFrom(response));
}

/**
 * Accounts for the tests of a file or describe block, after `setupAppEnv`: `AUTH_MODE=required`
 * (with `env`), an admin and a user it added, each signed in; all set back afterwards. The clients
 * are returned at once and hold their sessions from `beforeAll` on. `openSignup` lets tests sign up
 * more accounts.
 */
export function setupAccounts({
  admin = "admin",
  user = "user",
  openSignup = false,
  env = {},
}: {
  admin?: string;
  user?: string;
  openSignup?: boolean;
  env?: Record<string, string>;
} = {}): {
  admin: TestClient;
  user: TestClient;
} {
  const clients = { admin: client(), user: client() };
  const settings = { AUTH_MODE: "required", ...env };
  beforeAll(async () => {
    Object.assign(process.env, settings);
    resetConfigForTests();
    const db = await getDb();
    const signedIn = async (id: string) => `${SESSION_COOKIE}=${(await createSession(db, id, 1)).token}`;
    const made = await createUser(db, { username: admin, password: PASSWORD, role: "admin", byAdmin: true });
    clients.admin.cookie = await signedIn(made.id);
    const added = await createUser(db, { username: user, password: PASSWORD, byAdmin: true });
    clients.user.cookie = await signedIn(added.id);
    if (openSignup) {
      const opened = await patchSettings(clients.admin.request("/api/admin/settings", "PATCH", { signupOpen: true }));
      expect(opened.status).toBe(200);
    }
  });
  afterAll(() => {
    for (const name of Object.keys(settings)) delete process.env[name];
    resetConfigForTests();
  });
  return clients;
}
