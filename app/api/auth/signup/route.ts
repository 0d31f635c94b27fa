import { signupBody } from "@/lib/auth/account-rules";
import { createSession, createUser } from "@/lib/auth/accounts";
import { sessionCookie } from "@/lib/auth/session-cookie";
import { ensureSetupToken } from "@/lib/auth/setup-token";
import { getDb } from "@/lib/db/client";
import { countUsers, toPublicUser } from "@/lib/db/users";
import { accountsRequired, getConfig } from "@/lib/env-config";
import { AppError } from "@/lib/errors";
import { publicRoute } from "@/lib/http/api-route";
import { parseJsonBody } from "@/lib/http/responses";

export const dynamic = "force-dynamic";

/**
 * Creates an account and signs it in; the first account becomes the admin, and needs the setup token
 * printed in the server log (issued now, and printed, if none is stored).
 */
export const POST = publicRoute(async (request: Request) => {
  const config = getConfig();
  if (!accountsRequired(config)) {
    throw new AppError("bad_request:accounts_off", "Accounts are off: this server runs single-user on loopback.");
  }
  const { setupToken, ...account } = await parseJsonBody(request, signupBody);
  const db = await getDb();
  await ensureSetupToken(db, config, await countUsers(db));
  const user = await createUser(db, { ...account, needsSetupToken: true, setupToken });
  const session = await createSession(db, user.id, config.SESSION_TTL_DAYS);
  return Response.json(
    { user: toPublicUser(user) },
    { status: 201, headers: { "Set-Cookie": sessionCookie(request, session.token, session.expiresAt) } },
  );
});
