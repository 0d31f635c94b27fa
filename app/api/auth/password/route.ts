import { passwordChangeBody } from "@/lib/auth/account-rules";
import { changePassword, createSession } from "@/lib/auth/accounts";
import { clientKey } from "@/lib/auth/client-address";
import { getLoginThrottle, reserveLogin } from "@/lib/auth/login-throttle";
import { sessionCookie } from "@/lib/auth/session-cookie";
import { getDb } from "@/lib/db/client";
import { toPublicUser } from "@/lib/db/users";
import { getConfig } from "@/lib/env-config";
import { AppError } from "@/lib/errors";
import { apiRoute } from "@/lib/http/api-route";
import { parseJsonBody } from "@/lib/http/responses";

export const dynamic = "force-dynamic";

/**
 * The signed-in user changes their own password. The current password is checked like a sign-in
 * (counted by the same throttle, so a stolen session cannot guess it); on success every session of
 * the user ends and this browser gets a fresh one.
 */
export const POST = apiRoute(async (request: Request, _context: unknown, viewer) => {
  if (viewer.kind === "local") {
    throw new AppError(
      "bad_request:accounts_off",
      "Accounts are off: this server runs single-user on loopback, without a password to change.",
    );
  }
  const body = await parseJsonBody(request, passwordChangeBody);
  const attempt = reserveLogin(getLoginThrottle(), { account: viewer.user.username, address: clientKey(request) });
  const db = await getDb();
  if (!(await changePassword(db, viewer.user, body))) {
    throw new AppError("forbidden:current_password", "The current password is wrong.");
  }
  attempt.succeeded();
  const session = await createSession(db, viewer.user.id, getConfig().SESSION_TTL_DAYS);
  return Response.json(
    { user: toPublicUser(viewer.user) },
    { headers: { "Set-Cookie": sessionCookie(request, session.token, session.expiresAt) } },
  );
});
