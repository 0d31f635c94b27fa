import { expect } from "vitest";
import { POST as login } from "@/app/api/auth/login/route";
import { POST as signup } from "@/app/api/auth/signup/route";

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

export async function signUp(username: string, password = "correct horse battery"): Promise<TestClient> {
  const response = await signup(client().request("/api/auth/signup", "POST", { username, password }));
  expect(response.status).toBe(201);
  return client(cookieFrom(response));
}

export async function signIn(username: string, password = "correct horse battery"): Promise<TestClient> {
  const response = await login(client().request("/api/auth/login", "POST", { username, password }));
  expect(response.status).toBe(200);
  return client(cookieFrom(response));
}
