import "server-only";
import type { Db } from "@/lib/db/client";
import type { OwnerId } from "@/lib/db/conversations";
import type { User } from "@/lib/db/schema";
import { accountsRequired, getConfig, isLoopbackHost } from "@/lib/env-config";
import { AppError } from "@/lib/errors";
import { sessionUser } from "./accounts";

/**
 * Who is asking (docs/security.md, "Accounts, sessions and authorization"). On loopback without accounts
 * everyone is the single local user, whose conversations have no owner; with accounts required, a request
 * needs a valid session cookie.
 */
export type Viewer = { kind: "local" } | { kind: "user"; user: User };

export const SESSION_COOKIE = "ow_session";

export function ownerOf(viewer: Viewer): OwnerId {
  return viewer.kind === "user" ? viewer.user.id : null;
}

export function isAdmin(viewer: Viewer): boolean {
  return viewer.kind === "local" || viewer.user.role === "admin";
}

export function readCookie(request: Request, name: string): string | undefined {
  for (const part of (request.headers.get("cookie") ?? "").split(";")) {
    const [key, ...value] = part.trim().split("=");
    if (key === name) return decodeURIComponent(value.join("="));
  }
  return undefined;
}

/** The viewer, or null when accounts are required and the request has no valid session. */
export async function resolveViewer(db: Db, request: Request): Promise<Viewer | null> {
  if (!accountsRequired(getConfig())) return { kind: "local" };
  const user = await sessionUser(db, readCookie(request, SESSION_COOKIE));
  return user ? { kind: "user", user } : null;
}

/** Whether a public route may show this request the admin's details; false when that cannot be told. */
export async function viewsAsAdmin(db: () => Promise<Db>, request: Request): Promise<boolean> {
  try {
    const viewer = await resolveViewer(await db(), request);
    return viewer !== null && isAdmin(viewer);
  } catch {
    return false;
  }
}

export async function requireViewer(db: Db, request: Request, { admin = false } = {}): Promise<Viewer> {
  const viewer = await resolveViewer(db, request);
  if (!viewer) throw new AppError("unauthorized:session", "Sign in to continue.");
  if (admin && !isAdmin(viewer)) throw new AppError("forbidden:admin", "Only an admin can do this.");
  return viewer;
}

/** The origin the browser sees: behind a proxy, from X-Forwarded-Proto/Host. */
export function expectedOrigin(request: Request): string {
  const url = new URL(request.url);
  const proto = request.headers.get("x-forwarded-proto")?.split(",")[0]?.trim() || url.protocol.replace(":", "");
  const host =
    request.headers.get("x-forwarded-host")?.split(",")[0]?.trim() || request.headers.get("host") || url.host;
  return `${proto}://${host}`;
}

const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);

/**
 * Request checks that apply to every API route:
 * - state-changing requests from another site are refused (Origin, else Sec-Fetch-Site);
 * - without accounts, only loopback Host names are served, so a DNS-rebinding page cannot talk to
 *   the local app, and a reverse proxy in front forces the operator to turn accounts on.
 */
export function guardRequest(request: Request): void {
  if (!accountsRequired(getConfig())) {
    const host = (request.headers.get("host") ?? "").replace(/:\d+$/, "");
    if (host && !isLoopbackHost(host)) {
      throw new AppError(
        "forbidden:host",
        `This server runs without accounts and answers only on loopback. To serve ${host}, set AUTH_MODE=required.`,
        { details: { host } },
      );
    }
  }
  if (SAFE_METHODS.has(request.method)) return;
  const origin = request.headers.get("origin");
  if (origin !== null) {
    if (origin !== expectedOrigin(request)) {
      throw new AppError("forbidden:origin", "Cross-site request refused.");
    }
    return;
  }
  if (request.headers.get("sec-fetch-site") === "cross-site") {
    throw new AppError("forbidden:origin", "Cross-site request refused.");
  }
}
