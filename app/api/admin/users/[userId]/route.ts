import { adminCount, deleteUser, getUser, toPublicUser, updateUser } from "@/lib/auth/accounts";
import { hashPassword } from "@/lib/auth/password";
import type { Viewer } from "@/lib/auth/viewer";
import { stopRunsOf } from "@/lib/chat/account-removal";
import { getDb } from "@/lib/db/client";
import { AppError } from "@/lib/errors";
import { apiRoute } from "@/lib/http/api-route";
import { parseJsonBody } from "@/lib/http/responses";
import { updateUserBody } from "../../schema";

export const dynamic = "force-dynamic";

type Context = { params: Promise<{ userId: string }> };

/** The last active admin cannot lock everyone out. */
function guardLastAdmin(viewer: Viewer, userId: string, removesAdmin: boolean) {
  const db = getDb();
  const target = getUser(db, userId);
  if (removesAdmin && target.role === "admin" && !target.disabled && adminCount(db) <= 1) {
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
    guardLastAdmin(viewer, userId, body.disabled === true || body.role === "user");
    const user = updateUser(getDb(), userId, {
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
 * (stored as stopped, their streams told and closed), in the same synchronous step as the removal.
 */
export const DELETE = apiRoute(
  async (_request: Request, { params }: Context, viewer) => {
    const { userId } = await params;
    guardLastAdmin(viewer, userId, true);
    const db = getDb();
    stopRunsOf(db, userId);
    deleteUser(db, userId);
    return new Response(null, { status: 204 });
  },
  { admin: true },
);
