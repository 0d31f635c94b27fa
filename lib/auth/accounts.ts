import "server-only";
import { createHash, randomBytes } from "node:crypto";
import { and, asc, count, eq, gt, isNull, lt } from "drizzle-orm";
import type { Db } from "@/lib/db/client";
import { lockedForShare, lockedForUpdate } from "@/lib/db/portable-sql";
import { conversations, presets, sessions, settings, type User, type UserRole, users } from "@/lib/db/schema";
import { AppError } from "@/lib/errors";
import { checkNewAccount } from "./account-rules";
import { dummyHash, hashPassword, verifyPassword } from "./password";
import { clearSetupTokens, consumeSetupToken, isSetupToken, setupTokenError } from "./setup-token";

/** Accounts, sessions and the sign-up switch (docs/security.md, "Accounts, sessions and authorization"). */

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

/**
 * Whether anyone may create an account. Closed unless the admin opened it: the first account (the
 * admin) can always be created, but once it exists nobody else joins without the admin's say-so.
 */
export async function isSignupOpen(db: Db): Promise<boolean> {
  const [row] = await db.select().from(settings).where(eq(settings.key, "signupOpen")).limit(1);
  return row?.value === true;
}

const signupClosed = () => new AppError("forbidden:signup_closed", "Sign-up is closed. Ask the admin for an account.");

export async function setSignupOpen(db: Db, open: boolean): Promise<void> {
  await db
    .insert(settings)
    .values({ key: "signupOpen", value: open })
    .onConflictDoUpdate({ target: settings.key, set: { value: open } });
}

const ACCOUNT_LOCK_KEY = "accountCreationLock";

/**
 * Account creations one at a time, until the transaction ends: PostgreSQL locks one settings row
 * (made by the first creation), so a second first sign-up waits and then counts the first's user.
 * SQLite's transactions run one at a time already.
 */
async function holdAccountCreation(tx: Db): Promise<void> {
  await tx.insert(settings).values({ key: ACCOUNT_LOCK_KEY, value: true }).onConflictDoNothing();
  await lockedForUpdate(tx.select().from(settings).where(eq(settings.key, ACCOUNT_LOCK_KEY)));
}

/**
 * Creates an account. The first one becomes the admin and takes over the conversations of
 * single-user mode; later ones need sign-up open (or an admin creating them). A sign-up
 * (`needsSetupToken`) makes the first account only with a stored setup token, which the same
 * transaction removes; of two concurrent first sign-ups exactly one becomes the admin.
 */
export async function createUser(
  db: Db,
  {
    username,
    password,
    role,
    byAdmin = false,
    needsSetupToken = false,
    setupToken,
  }: {
    username: string;
    password: string;
    role?: UserRole;
    byAdmin?: boolean;
    needsSetupToken?: boolean;
    setupToken?: string;
  },
): Promise<User> {
  checkNewAccount({ username, password });
  const name = normaliseUsername(username);
  // Refused before the (slow) hash as well, so a closed sign-up or a wrong token costs the server nothing.
  const existing = await countUsers(db);
  if (!byAdmin && existing > 0 && !(await isSignupOpen(db))) throw signupClosed();
  if (existing === 0 && needsSetupToken && !(setupToken !== undefined && (await isSetupToken(db, setupToken)))) {
    throw setupTokenError();
  }
  const passwordHash = await hashPassword(password);
  return db.transaction(async (tx) => {
    await holdAccountCreation(tx);
    const first = (await countUsers(tx)) === 0;
    if (!first && !byAdmin && !(await isSignupOpen(tx))) throw signupClosed();
    if (first && needsSetupToken) await consumeSetupToken(tx, setupToken);
    else if (first) await clearSetupTokens(tx);
    if (await findUserByName(tx, name)) {
      throw new AppError("conflict:username", `The username ${name} is taken.`, { details: { username: name } });
    }
    const user: User = {
      id: crypto.randomUUID(),
      username: name,
      passwordHash,
      role: first ? "admin" : (role ?? "user"),
      disabled: false,
      createdAt: Date.now(),
      removingAt: null,
    };
    await tx.insert(users).values(user);
    if (first) {
      await tx.update(conversations).set({ userId: user.id }).where(isNull(conversations.userId));
      await tx.update(presets).set({ userId: user.id }).where(isNull(presets.userId));
    }
    return user;
  });
}

/** The user for a name and password, or null — the same work either way, so timing tells nothing. */
export async function authenticate(db: Db, username: string, password: string): Promise<User | null> {
  const user = await findUserByName(db, username);
  const ok = await verifyPassword(password, user?.passwordHash ?? (await dummyHash()));
  return user && ok && !user.disabled ? user : null;
}

export async function updateUser(
  db: Db,
  id: string,
  changes: { disabled?: boolean; role?: UserRole; passwordHash?: string },
): Promise<User> {
  const user = await getUser(db, id);
  await db.update(users).set(changes).where(eq(users.id, id));
  if (changes.disabled || changes.passwordHash) await revokeUserSessions(db, id);
  return { ...user, ...changes };
}

/**
 * Replaces a user's password when `currentPassword` is theirs; false (nothing changed) when it is not.
 * Every session of the user is revoked: the caller issues the one that stays signed in.
 */
export async function changePassword(
  db: Db,
  user: User,
  { currentPassword, newPassword }: { currentPassword: string; newPassword: string },
): Promise<boolean> {
  if (!(await verifyPassword(currentPassword, user.passwordHash))) return false;
  await updateUser(db, user.id, { passwordHash: await hashPassword(newPassword) });
  return true;
}

/** Removes an account with everything it owns. */
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

export async function deleteUser(db: Db, id: string): Promise<void> {
  await getUser(db, id);
  await db.delete(users).where(eq(users.id, id));
}

export async function adminCount(db: Db): Promise<number> {
  const [row] = await db
    .select({ n: count() })
    .from(users)
    .where(and(eq(users.role, "admin"), eq(users.disabled, false)));
  return row?.n ?? 0;
}

const hashToken = (token: string) => createHash("sha256").update(token).digest("hex");

/** A fresh session for a successful login: a new random token every time (no fixation). */
export async function createSession(
  db: Db,
  userId: string,
  ttlDays: number,
): Promise<{ token: string; expiresAt: number }> {
  const token = randomBytes(32).toString("base64url");
  const now = Date.now();
  const expiresAt = now + ttlDays * 24 * 3600 * 1000;
  await db.insert(sessions).values({ id: hashToken(token), userId, createdAt: now, expiresAt });
  await db.delete(sessions).where(lt(sessions.expiresAt, now));
  return { token, expiresAt };
}

export async function sessionUser(db: Db, token: string | undefined): Promise<User | null> {
  if (!token) return null;
  const [row] = await db
    .select({ user: users })
    .from(sessions)
    .innerJoin(users, eq(users.id, sessions.userId))
    .where(and(eq(sessions.id, hashToken(token)), gt(sessions.expiresAt, Date.now())))
    .limit(1);
  return row && !row.user.disabled ? row.user : null;
}

export async function revokeSession(db: Db, token: string): Promise<void> {
  await db.delete(sessions).where(eq(sessions.id, hashToken(token)));
}

export async function revokeUserSessions(db: Db, userId: string): Promise<void> {
  await db.delete(sessions).where(eq(sessions.userId, userId));
}
