import "server-only";
import { z } from "zod";
import type { Db } from "@/lib/db/client";
import type { OwnerId } from "@/lib/db/conversations";
import { memoryPreferencesKey as keyOf } from "@/lib/db/memories";
import { readSetting, writeSetting } from "@/lib/db/settings";

/**
 * A user's own memory switches (docs/architecture.md, "Projects and memory"), one row of the
 * settings table per owner: memory on or off (off: no memory read or written, `remember` not
 * offered), and whether `remember` only proposes, saving when the user confirms.
 */

export const memoryPreferencesSchema = z.object({
  enabled: z.boolean(),
  askBeforeSaving: z.boolean(),
});
export type MemoryPreferences = z.infer<typeof memoryPreferencesSchema>;

const DEFAULTS: MemoryPreferences = { enabled: true, askBeforeSaving: false };

export async function readMemoryPreferences(db: Db, { ownerId }: { ownerId: OwnerId }): Promise<MemoryPreferences> {
  const stored = memoryPreferencesSchema.partial().safeParse(await readSetting(db, keyOf(ownerId)));
  return { ...DEFAULTS, ...(stored.success ? stored.data : {}) };
}

export async function writeMemoryPreferences(
  db: Db,
  { ownerId, changes }: { ownerId: OwnerId; changes: Partial<MemoryPreferences> },
): Promise<MemoryPreferences> {
  const next = { ...(await readMemoryPreferences(db, { ownerId })), ...changes };
  await writeSetting(db, keyOf(ownerId), next);
  return next;
}
