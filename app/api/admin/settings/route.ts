import { isSignupOpen, setSignupOpen } from "@/lib/auth/accounts";
import { getDb } from "@/lib/db/client";
import { apiRoute } from "@/lib/http/api-route";
import { parseJsonBody } from "@/lib/http/responses";
import { adminSettingsBody } from "../schema";

export const dynamic = "force-dynamic";

export const GET = apiRoute(async () => Response.json({ signupOpen: await isSignupOpen(await getDb()) }), {
  admin: true,
});

export const PATCH = apiRoute(
  async (request: Request) => {
    const body = await parseJsonBody(request, adminSettingsBody);
    await setSignupOpen(await getDb(), body.signupOpen);
    return Response.json({ signupOpen: body.signupOpen });
  },
  { admin: true },
);
