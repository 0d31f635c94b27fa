import "server-only";
import { and, asc, count, eq, isNull } from "drizzle-orm";
import { AppError } from "@/lib/errors";
import type { Db } from "./client";
import { memoryPreferencesKey } from "./memories";
import { lockedForShare } from "./portable-sql";
import { conversations, memories, memoryDismissals, presets, type User, type UserRole, users } from "./schema";
import { deleteSetting } from "./settings";

/** The users table (the account rules are lib/auth/accounts.ts). */

export type PublicUser = Pick<User, "id" | "username" | "role" | "disabled" | "createdAt">;

export const toPublicUser = ({ id, username, role, disabled, createdAt }: User): PublicUser => ({
  id,
  username,
  role,
  disabled,
  createdAt,
});

export const normaliseUsername = (name: string) => name.trim().toLowerCase();

export async function countUsers(db: Db): Promise<number> {
  const [row] = await db.select({ n: count() }).from(users);
  return row?.n ?? 0;
}

export async function listUsers(db: Db): Promise<PublicUser[]> {
  return (await db.select().from(users).orderBy(asc(users.createdAt))).map(toPublicUser);
}

export async function findUserByName(db: Db, username: string): Promise<User | undefined> {
  const [user] = await db
    .select()
    .from(users)
    .where(eq(users.username, normaliseUsername(username)))
    .limit(1);
  return user;
}

export async function getUser(db: Db, id: string): Promise<User> {
  const [user] = await db.select().from(users).where(eq(users.id, id)).limit(1);
  if (!user) throw new AppError("not_found:user", "User not found.");
  return user;
}

/** Stores a new account; the first one (`claimOwnerless`) takes over single-user mode's conversations, presets, memories and dismissed proposals. */
export async function insertUser(tx: Db, user: User, { claimOwnerless }: { claimOwnerless: boolean }): Promise<void> {
  await tx.insert(users).values(user);
  if (claimOwnerless) {
    await tx.update(conversations).set({ userId: user.id }).where(isNull(conversations.userId));
    await tx.update(presets).set({ userId: user.id }).where(isNull(presets.userId));
    await tx.update(memories).set({ userId: user.id }).where(isNull(memories.userId));
    await tx.update(memoryDismissals).set({ userId: user.id }).where(isNull(memoryDismissals.userId));
  }
}

export async function setUserFields(
  db: Db,
  id: string,
  changes: { disabled?: boolean; role?: UserRole; passwordHash?: string },
): Promise<void> {
  await db.update(users).set(changes).where(eq(users.id, id));
}

/**
 * Marks (or, with `removing: false`, unmarks) the account as being removed, committed at once, so a
 * start on any app instance sees it (`holdAccount`). With PostgreSQL the update waits for the starts
 * that hold the account's row meanwhile: once it returns, every run they stored is visible.
 */
export async function markRemoving(db: Db, id: string, removing = true): Promise<void> {
  await db
    .update(users)
    .set({ removingAt: removing ? Date.now() : null })
    .where(eq(users.id, id));
}

/**
 * Inside a turn's start transaction: holds the account's row (FOR SHARE with PostgreSQL, so a
 * removal's mark waits for this transaction) and refuses the start (404) when the account is gone
 * or its removal began, on whichever instance.
 */
export async function holdAccount(tx: Db, id: string): Promise<void> {
  const [account] = await lockedForShare(
    tx.select({ removingAt: users.removingAt }).from(users).where(eq(users.id, id)),
  );
  if (!account || account.removingAt !== null) {
    throw new AppError("not_found:account", "This account is being removed.");
  }
}

/**
 * Removes an account with everything it owns: its rows go by their foreign keys' cascade, its
 * memory switches (a settings row, which has no key to the account) in the same transaction.
 */
export async function deleteUser(db: Db, id: string): Promise<void> {
  await getUser(db, id);
  await db.transaction(async (tx) => {
    await tx.delete(users).where(eq(users.id, id));
    await deleteSetting(tx, memoryPreferencesKey(id));
  });
}

export async function adminCount(db: Db): Promise<number> {
  const [row] = await db
    .select({ n: count() })
    .from(users)
    .where(and(eq(users.role, "admin"), eq(users.disabled, false)));
  return row?.n ?? 0;
}
