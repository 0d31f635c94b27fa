import { authenticate, createSession, normaliseUsername, toPublicUser } from "@/lib/auth/accounts";
import { FailureLimiter } from "@/lib/auth/rate-limit";
import { sessionCookie } from "@/lib/auth/session-cookie";
import { clientAddress } from "@/lib/auth/viewer";
import { getConfig } from "@/lib/config";
import { getDb } from "@/lib/db/client";
import { AppError } from "@/lib/errors";
import { publicRoute } from "@/lib/http/api-route";
import { parseJsonBody } from "@/lib/http/responses";
import { loginBody } from "../schema";

export const dynamic = "force-dynamic";

const WINDOW_MS = 15 * 60 * 1000;
const globalForLimits = globalThis as unknown as {
  __loginLimits?: { account: FailureLimiter; address: FailureLimiter };
};
globalForLimits.__loginLimits ??= {
  account: new FailureLimiter(5, WINDOW_MS),
  address: new FailureLimiter(20, WINDOW_MS),
};
const limits = globalForLimits.__loginLimits;

/** Signs in: a new session token every time (no fixation), failures throttled per account and address. */
export const POST = publicRoute(async (request: Request) => {
  const body = await parseJsonBody(request, loginBody);
  const accountKey = normaliseUsername(body.username);
  const addressKey = clientAddress(request);
  const wait = Math.max(limits.account.retryAfter(accountKey), limits.address.retryAfter(addressKey));
  if (wait > 0) {
    throw new AppError("rate_limited:login", "Too many failed sign-ins. Try again later.", {
      details: { retryAfterSeconds: Math.ceil(wait / 1000) },
    });
  }
  const db = getDb();
  const user = await authenticate(db, body.username, body.password);
  if (!user) {
    limits.account.fail(accountKey);
    limits.address.fail(addressKey);
    throw new AppError("unauthorized:credentials", "Wrong username or password, or the account is disabled.");
  }
  limits.account.reset(accountKey);
  const session = createSession(db, user.id, getConfig().SESSION_TTL_DAYS);
  return Response.json(
    { user: toPublicUser(user) },
    { headers: { "Set-Cookie": sessionCookie(request, session.token, session.expiresAt) } },
  );
});
