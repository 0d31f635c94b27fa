import "server-only";
import { expectedOrigin, SESSION_COOKIE } from "./viewer";

/**
 * The session cookie: HTTP-only, SameSite=Lax, Secure when the browser talks https (docs/security.md,
 * "Accounts, sessions and authorization").
 */
export function sessionCookie(request: Request, token: string, expiresAt: number): string {
  const secure = expectedOrigin(request).startsWith("https:") ? "; Secure" : "";
  const maxAge = Math.max(0, Math.floor((expiresAt - Date.now()) / 1000));
  return `${SESSION_COOKIE}=${token}; Path=/; HttpOnly; SameSite=Lax; Max-Age=${maxAge}${secure}`;
}

export function clearedSessionCookie(request: Request): string {
  const secure = expectedOrigin(request).startsWith("https:") ? "; Secure" : "";
  return `${SESSION_COOKIE}=; Path=/; HttpOnly; SameSite=Lax; Max-Age=0${secure}`;
}
