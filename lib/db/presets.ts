import "server-only";
import { and, asc, eq, isNull } from "drizzle-orm";
import type { ChatSettings } from "@/lib/chat-settings";
import { AppError } from "@/lib/errors";
import type { Db } from "./client";
import type { OwnerId } from "./queries";
import { type Preset, presets } from "./schema";

/**
 * A user's presets (a saved model + instructions + options) and the personal default among them,
 * which new chats start with (docs/architecture.md, "A chat's own settings"). Another user's preset
 * is "not found", exactly like a missing one.
 */

const ownedBy = (ownerId: OwnerId) => (ownerId === null ? isNull(presets.userId) : eq(presets.userId, ownerId));

export function listPresets(db: Db, { ownerId }: { ownerId: OwnerId }): Preset[] {
  return db.select().from(presets).where(ownedBy(ownerId)).orderBy(asc(presets.createdAt), asc(presets.id)).all();
}

export function getPreset(db: Db, { id, ownerId }: { id: string; ownerId: OwnerId }): Preset {
  const row = db
    .select()
    .from(presets)
    .where(and(eq(presets.id, id), ownedBy(ownerId)))
    .get();
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
function clearDefault(db: Db, ownerId: OwnerId): void {
  db.update(presets)
    .set({ isDefault: false })
    .where(and(ownedBy(ownerId), eq(presets.isDefault, true)))
    .run();
}

export function createPreset(db: Db, { ownerId, ...fields }: PresetFields & { ownerId: OwnerId }): Preset {
  const row: Preset = { id: crypto.randomUUID(), userId: ownerId, ...fields, createdAt: Date.now() };
  db.transaction(() => {
    if (row.isDefault) clearDefault(db, ownerId);
    db.insert(presets).values(row).run();
  });
  return row;
}

export function updatePreset(
  db: Db,
  { id, ownerId, ...changes }: Partial<PresetFields> & { id: string; ownerId: OwnerId },
): Preset {
  db.transaction(() => {
    getPreset(db, { id, ownerId });
    if (changes.isDefault) clearDefault(db, ownerId);
    db.update(presets).set(changes).where(eq(presets.id, id)).run();
  });
  return getPreset(db, { id, ownerId });
}

export function deletePreset(db: Db, { id, ownerId }: { id: string; ownerId: OwnerId }): void {
  const result = db
    .delete(presets)
    .where(and(eq(presets.id, id), ownedBy(ownerId)))
    .run();
  if (result.changes === 0) throw new AppError("not_found:preset", `Preset ${id} not found.`);
}

/**
 * What a new chat starts with: the chosen preset, or with none chosen (`undefined`) the owner's
 * default one; `null` chooses none. Its model applies unless the request names one.
 */
export function newChatPreset(
  db: Db,
  { ownerId, presetId }: { ownerId: OwnerId; presetId: string | null | undefined },
): { model: string | null; settings: ChatSettings } {
  const preset =
    presetId === undefined
      ? db
          .select()
          .from(presets)
          .where(and(ownedBy(ownerId), eq(presets.isDefault, true)))
          .get()
      : presetId === null
        ? undefined
        : getPreset(db, { id: presetId, ownerId });
  return { model: preset?.model ?? null, settings: preset?.settings ?? {} };
}
