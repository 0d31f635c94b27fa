import "server-only";
import { createHash, randomBytes } from "node:crypto";
import type { Db } from "@/lib/db/client";
import type { User, UserRole } from "@/lib/db/schema";
import { deleteSession, findSessionUser, insertSession, revokeUserSessions } from "@/lib/db/sessions";
import { holdSetting, readSetting, writeSetting } from "@/lib/db/settings";
import { countUsers, findUserByName, getUser, insertUser, normaliseUsername, setUserFields } from "@/lib/db/users";
import { AppError } from "@/lib/errors";
import { checkNewAccount } from "./account-rules";
import { dummyHash, hashPassword, verifyPassword } from "./password";
import { clearSetupTokens, consumeSetupToken, isSetupToken, setupTokenError } from "./setup-token";

/** Accounts, sessions and the sign-up switch (docs/security.md, "Accounts, sessions and authorization"). */

/**
 * Whether anyone may create an account. Closed unless the admin opened it: the first account (the
 * admin) can always be created, but once it exists nobody else joins without the admin's say-so.
 */
export async function isSignupOpen(db: Db): Promise<boolean> {
  return (await readSetting(db, "signupOpen")) === true;
}

const signupClosed = () => new AppError("forbidden:signup_closed", "Sign-up is closed. Ask the admin for an account.");

export async function setSignupOpen(db: Db, open: boolean): Promise<void> {
  await writeSetting(db, "signupOpen", open);
}

const ACCOUNT_LOCK_KEY = "accountCreationLock";

/**
 * Account creations one at a time, until the transaction ends: PostgreSQL locks one settings row
 * (made by the first creation), so a second first sign-up waits and then counts the first's user.
 * SQLite's transactions run one at a time already.
 */
async function holdAccountCreation(tx: Db): Promise<void> {
  await holdSetting(tx, ACCOUNT_LOCK_KEY, true);
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
    await insertUser(tx, user, { claimOwnerless: first });
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
  await setUserFields(db, id, changes);
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
  await insertSession(db, { id: hashToken(token), userId, createdAt: now, expiresAt });
  return { token, expiresAt };
}

export async function sessionUser(db: Db, token: string | undefined): Promise<User | null> {
  if (!token) return null;
  const user = await findSessionUser(db, hashToken(token));
  return user && !user.disabled ? user : null;
}

export async function revokeSession(db: Db, token: string): Promise<void> {
  await deleteSession(db, hashToken(token));
}
