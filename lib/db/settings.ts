import "server-only";
import { eq } from "drizzle-orm";
import type { Db } from "./client";
import { lockedForUpdate } from "./portable-sql";
import { settings } from "./schema";

/**
 * The settings table: one JSON value per key. What the keys mean belongs to their modules — the
 * settings page's values (lib/admin-settings.ts), the sign-up switch and the account-creation lock
 * (lib/auth/accounts.ts), the setup tokens' hashes (lib/auth/setup-token.ts), the revision
 * (./settings-revision.ts), each user's memory switches (lib/memory/preferences.ts, removed with
 * the account).
 */

/** Every stored value by its key. */
export async function readAllSettings(db: Db): Promise<Map<string, unknown>> {
  const rows = await db.select().from(settings);
  return new Map(rows.map((row) => [row.key, row.value]));
}

/** The value stored under `key`; undefined when none is. */
export async function readSetting(db: Db, key: string): Promise<unknown> {
  const [row] = await db.select().from(settings).where(eq(settings.key, key)).limit(1);
  return row?.value;
}

export async function writeSetting(db: Db, key: string, value: unknown): Promise<void> {
  await db.insert(settings).values({ key, value }).onConflictDoUpdate({ target: settings.key, set: { value } });
}

export async function deleteSetting(db: Db, key: string): Promise<void> {
  await db.delete(settings).where(eq(settings.key, key));
}

/**
 * Inside a transaction: holds the row of `key` until it ends (PostgreSQL; SQLite runs one write
 * transaction at a time), made with `initial` first when `initial` is given and the row is missing.
 */
export async function holdSetting(tx: Db, key: string, initial?: unknown): Promise<void> {
  if (initial !== undefined) await tx.insert(settings).values({ key, value: initial }).onConflictDoNothing();
  await lockedForUpdate(tx.select().from(settings).where(eq(settings.key, key)));
}
