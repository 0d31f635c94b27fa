import "server-only";
import { randomUUID } from "node:crypto";
import { eq } from "drizzle-orm";
import type { Db } from "./client";
import { settings } from "./schema";

/**
 * The revision of what admins change while the app runs — the settings page's settings and the MCP
 * servers (docs/cluster.md, "Several app instances"): a random token in the settings table,
 * written again after each change. Each instance caches those and reads the token at every run's
 * start (and before each MCP tool call); a token it has not seen means another instance changed
 * something, and it reads them afresh. So a change, or an MCP server switched off, reaches every
 * instance without a cluster message.
 */
export const REVISION_KEY = "revision";

export async function readRevision(db: Db): Promise<string | null> {
  const [row] = await db
    .select({ value: settings.value })
    .from(settings)
    .where(eq(settings.key, REVISION_KEY))
    .limit(1);
  return typeof row?.value === "string" ? row.value : null;
}

/** After a change: inside its transaction where there is one, so no instance sees the token before the change. */
export async function bumpRevision(db: Db): Promise<void> {
  const value = randomUUID();
  await db
    .insert(settings)
    .values({ key: REVISION_KEY, value })
    .onConflictDoUpdate({ target: settings.key, set: { value } });
}
