import { countUsers, isSignupOpen, toPublicUser } from "@/lib/auth/accounts";
import { resolveViewer } from "@/lib/auth/viewer";
import { accountsRequired, getConfig } from "@/lib/config";
import { getDb } from "@/lib/db/client";
import { publicRoute } from "@/lib/http/api-route";

export const dynamic = "force-dynamic";

/** What the UI needs to decide between the app, the sign-in page and the first-admin sign-up. */
export const GET = publicRoute(async (request: Request) => {
  const db = await getDb();
  const required = accountsRequired(getConfig());
  const viewer = await resolveViewer(db, request);
  return Response.json({
    accountsRequired: required,
    user: viewer?.kind === "user" ? toPublicUser(viewer.user) : null,
    signupOpen: required ? (await isSignupOpen(db)) || (await countUsers(db)) === 0 : false,
    firstUser: required && (await countUsers(db)) === 0,
  });
});
