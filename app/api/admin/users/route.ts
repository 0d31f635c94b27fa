import { createUser } from "@/lib/auth/accounts";
import { getDb } from "@/lib/db/client";
import { listUsers, toPublicUser } from "@/lib/db/users";
import { apiRoute } from "@/lib/http/api-route";
import { parseJsonBody } from "@/lib/http/responses";
import { createUserBody } from "../schema";

export const dynamic = "force-dynamic";

export const GET = apiRoute(async () => Response.json({ users: await listUsers(await getDb()) }), { admin: true });

/** The admin adds an account, sign-up open or not. */
export const POST = apiRoute(
  async (request: Request) => {
    const body = await parseJsonBody(request, createUserBody);
    const user = await createUser(await getDb(), { ...body, byAdmin: true });
    return Response.json({ user: toPublicUser(user) }, { status: 201 });
  },
  { admin: true },
);
