import "server-only";
import { and, eq, gt, lt } from "drizzle-orm";
import type { Db } from "./client";
import { sessions, type User, users } from "./schema";

/** The sessions table, keyed by the hash of each session's token (lib/auth/accounts.ts makes and hashes them). */

/** Stores a session and drops the expired ones. */
export async function insertSession(
  db: Db,
  session: { id: string; userId: string; createdAt: number; expiresAt: number },
): Promise<void> {
  await db.insert(sessions).values(session);
  await db.delete(sessions).where(lt(sessions.expiresAt, session.createdAt));
}

/** The user of an unexpired session. */
export async function findSessionUser(db: Db, id: string): Promise<User | undefined> {
  const [row] = await db
    .select({ user: users })
    .from(sessions)
    .innerJoin(users, eq(users.id, sessions.userId))
    .where(and(eq(sessions.id, id), gt(sessions.expiresAt, Date.now())))
    .limit(1);
  return row?.user;
}

export async function deleteSession(db: Db, id: string): Promise<void> {
  await db.delete(sessions).where(eq(sessions.id, id));
}

export async function revokeUserSessions(db: Db, userId: string): Promise<void> {
  await db.delete(sessions).where(eq(sessions.userId, userId));
}
