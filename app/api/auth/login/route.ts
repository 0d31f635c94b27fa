import { loginBody } from "@/lib/auth/account-rules";
import { authenticate, createSession } from "@/lib/auth/accounts";
import { clientKey } from "@/lib/auth/client-address";
import { getLoginThrottle, reserveLogin } from "@/lib/auth/login-throttle";
import { sessionCookie } from "@/lib/auth/session-cookie";
import { getDb } from "@/lib/db/client";
import { normaliseUsername, toPublicUser } from "@/lib/db/users";
import { getConfig } from "@/lib/env-config";
import { AppError } from "@/lib/errors";
import { publicRoute } from "@/lib/http/api-route";
import { parseJsonBody } from "@/lib/http/responses";

export const dynamic = "force-dynamic";

/**
 * Signs in: a new session token every time (no fixation). The attempt is counted per account and
 * per client address before the password is checked (lib/auth/login-throttle.ts).
 */
export const POST = publicRoute(async (request: Request) => {
  const body = await parseJsonBody(request, loginBody);
  const attempt = reserveLogin(getLoginThrottle(), {
    account: normaliseUsername(body.username),
    address: clientKey(request),
  });
  const db = await getDb();
  const user = await authenticate(db, body.username, body.password);
  if (!user) {
    throw new AppError("unauthorized:credentials", "Wrong username or password, or the account is disabled.");
  }
  attempt.succeeded();
  const session = await createSession(db, user.id, getConfig().SESSION_TTL_DAYS);
  return Response.json(
    { user: toPublicUser(user) },
    { headers: { "Set-Cookie": sessionCookie(request, session.token, session.expiresAt) } },
  );
});
