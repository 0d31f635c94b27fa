import { credentials } from "@/lib/auth/account-rules";
import { createSession, createUser, toPublicUser } from "@/lib/auth/accounts";
import { sessionCookie } from "@/lib/auth/session-cookie";
import { accountsRequired, getConfig } from "@/lib/config";
import { getDb } from "@/lib/db/client";
import { AppError } from "@/lib/errors";
import { publicRoute } from "@/lib/http/api-route";
import { parseJsonBody } from "@/lib/http/responses";

export const dynamic = "force-dynamic";

/** Creates an account and signs it in; the first account becomes the admin. */
export const POST = publicRoute(async (request: Request) => {
  const config = getConfig();
  if (!accountsRequired(config)) {
    throw new AppError("bad_request:accounts_off", "Accounts are off: this server runs single-user on loopback.");
  }
  const body = await parseJsonBody(request, credentials);
  const db = await getDb();
  const user = await createUser(db, body);
  const session = await createSession(db, user.id, config.SESSION_TTL_DAYS);
  return Response.json(
    { user: toPublicUser(user) },
    { status: 201, headers: { "Set-Cookie": sessionCookie(request, session.token, session.expiresAt) } },
  );
});
