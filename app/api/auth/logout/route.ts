import { revokeSession } from "@/lib/auth/accounts";
import { clearedSessionCookie } from "@/lib/auth/session-cookie";
import { readCookie, SESSION_COOKIE } from "@/lib/auth/viewer";
import { getDb } from "@/lib/db/client";
import { publicRoute } from "@/lib/http/api-route";

export const dynamic = "force-dynamic";

export const POST = publicRoute(async (request: Request) => {
  const token = readCookie(request, SESSION_COOKIE);
  if (token) await revokeSession(await getDb(), token);
  return new Response(null, { status: 204, headers: { "Set-Cookie": clearedSessionCookie(request) } });
});
