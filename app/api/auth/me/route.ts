import { isSignupOpen } from "@/lib/auth/accounts";
import { ensureSetupToken } from "@/lib/auth/setup-token";
import { resolveViewer } from "@/lib/auth/viewer";
import { getDb } from "@/lib/db/client";
import { countUsers, toPublicUser } from "@/lib/db/users";
import { accountsRequired, getConfig } from "@/lib/env-config";
import { publicRoute } from "@/lib/http/api-route";

export const dynamic = "force-dynamic";

/** What the UI needs to decide between the app, the sign-in page and the first-admin sign-up. */
export const GET = publicRoute(async (request: Request) => {
  const db = await getDb();
  const config = getConfig();
  const required = accountsRequired(config);
  const viewer = await resolveViewer(db, request);
  const userCount = await countUsers(db);
  const firstUser = required && userCount === 0;
  // The page that asks for the setup token: one must exist to be found in the log.
  if (firstUser) await ensureSetupToken(db, config, userCount);
  return Response.json({
    accountsRequired: required,
    user: viewer?.kind === "user" ? toPublicUser(viewer.user) : null,
    signupOpen: required ? (await isSignupOpen(db)) || firstUser : false,
    firstUser,
    // The first account needs the one-time setup token from the server log.
    setupTokenRequired: firstUser,
  });
});
