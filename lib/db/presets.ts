import "server-only";
import { and, asc, eq, isNull } from "drizzle-orm";
import type { ChatSettings } from "@/lib/chat-settings";
import { AppError } from "@/lib/errors";
import type { Db } from "./client";
import type { OwnerId } from "./conversations";
import { type Preset, presets } from "./schema";

/**
 * A user's presets (a saved model + instructions + options) and the personal default among them,
 * which new chats start with (docs/architecture.md, "A chat's own settings"). Another user's preset
 * is "not found", exactly like a missing one.
 */

const ownedBy = (ownerId: OwnerId) => (ownerId === null ? isNull(presets.userId) : eq(presets.userId, ownerId));

export function listPresets(db: Db, { ownerId }: { ownerId: OwnerId }): Promise<Preset[]> {
  return db.select().from(presets).where(ownedBy(ownerId)).orderBy(asc(presets.createdAt), asc(presets.id));
}

export async function getPreset(db: Db, { id, ownerId }: { id: string; ownerId: OwnerId }): Promise<Preset> {
  const [row] = await db
    .select()
    .from(presets)
    .where(and(eq(presets.id, id), ownedBy(ownerId)))
    .limit(1);
  if (!row) throw new AppError("not_found:preset", `Preset ${id} not found.`);
  return row;
}

export interface PresetFields {
  name: string;
  model: string | null;
  settings: ChatSettings;
  isDefault: boolean;
}

/** Marking a preset the default unmarks the owner's other one, in the same transaction. */
async function clearDefault(db: Db, ownerId: OwnerId): Promise<void> {
  await db
    .update(presets)
    .set({ isDefault: false })
    .where(and(ownedBy(ownerId), eq(presets.isDefault, true)));
}

export async function createPreset(
  db: Db,
  { ownerId, ...fields }: PresetFields & { ownerId: OwnerId },
): Promise<Preset> {
  const row: Preset = { id: crypto.randomUUID(), userId: ownerId, ...fields, createdAt: Date.now() };
  await db.transaction(async (tx) => {
    if (row.isDefault) await clearDefault(tx, ownerId);
    await tx.insert(presets).values(row);
  });
  return row;
}

export async function updatePreset(
  db: Db,
  { id, ownerId, ...changes }: Partial<PresetFields> & { id: string; ownerId: OwnerId },
): Promise<Preset> {
  await db.transaction(async (tx) => {
    await getPreset(tx, { id, ownerId });
    if (changes.isDefault) await clearDefault(tx, ownerId);
    await tx.update(presets).set(changes).where(eq(presets.id, id));
  });
  return getPreset(db, { id, ownerId });
}

export async function deletePreset(db: Db, { id, ownerId }: { id: string; ownerId: OwnerId }): Promise<void> {
  const deleted = await db
    .delete(presets)
    .where(and(eq(presets.id, id), ownedBy(ownerId)))
    .returning({ id: presets.id });
  if (deleted.length === 0) throw new AppError("not_found:preset", `Preset ${id} not found.`);
}

async function defaultPreset(db: Db, ownerId: OwnerId): Promise<Preset | undefined> {
  const [preset] = await db
    .select()
    .from(presets)
    .where(and(ownedBy(ownerId), eq(presets.isDefault, true)))
    .limit(1);
  return preset;
}

/**
 * What a new chat starts with: the chosen preset, or with none chosen (`undefined`) the owner's
 * default one; `null` chooses none. Its model applies unless the request names one.
 */
export async function newChatPreset(
  db: Db,
  { ownerId, presetId }: { ownerId: OwnerId; presetId: string | null | undefined },
): Promise<{ model: string | null; settings: ChatSettings }> {
  const preset =
    presetId === undefined
      ? await defaultPreset(db, ownerId)
      : presetId === null
        ? undefined
        : await getPreset(db, { id: presetId, ownerId });
  return { model: preset?.model ?? null, settings: preset?.settings ?? {} };
}
