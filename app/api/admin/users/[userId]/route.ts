import { updateUser } from "@/lib/auth/accounts";
import { hashPassword } from "@/lib/auth/password";
import type { Viewer } from "@/lib/auth/viewer";
import { removeAccount } from "@/lib/chat/account-removal";
import { getDb } from "@/lib/db/client";
import { adminCount, getUser, toPublicUser } from "@/lib/db/users";
import { AppError } from "@/lib/errors";
import { apiRoute } from "@/lib/http/api-route";
import { parseJsonBody } from "@/lib/http/responses";
import { updateUserBody } from "../../schema";

export const dynamic = "force-dynamic";

type Context = { params: Promise<{ userId: string }> };

/** The last active admin cannot lock everyone out. */
async function guardLastAdmin(viewer: Viewer, userId: string, removesAdmin: boolean) {
  const db = await getDb();
  const target = await getUser(db, userId);
  if (removesAdmin && target.role === "admin" && !target.disabled && (await adminCount(db)) <= 1) {
    throw new AppError("conflict:last_admin", "This is the last admin; make another admin first.");
  }
  if (removesAdmin && viewer.kind === "user" && viewer.user.id === userId) {
    throw new AppError("conflict:self", "You cannot disable, demote or remove your own account.");
  }
}

export const PATCH = apiRoute(
  async (request: Request, { params }: Context, viewer) => {
    const { userId } = await params;
    const body = await parseJsonBody(request, updateUserBody);
    await guardLastAdmin(viewer, userId, body.disabled === true || body.role === "user");
    const user = await updateUser(await getDb(), userId, {
      disabled: body.disabled,
      role: body.role,
      passwordHash: body.password ? await hashPassword(body.password) : undefined,
    });
    return Response.json({ user: toPublicUser(user) });
  },
  { admin: true },
);

/**
 * Removes the account with its conversations, files and runs. Its running answers are ended first
 * (stored as stopped, their streams told and closed), then the account goes; its starts meanwhile
 * are refused (`removeAccount`).
 */
export const DELETE = apiRoute(
  async (_request: Request, { params }: Context, viewer) => {
    const { userId } = await params;
    await guardLastAdmin(viewer, userId, true);
    const db = await getDb();
    await removeAccount(db, userId);
    return new Response(null, { status: 204 });
  },
  { admin: true },
);
