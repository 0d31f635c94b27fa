import "server-only";
import { and, asc, eq, getTableColumns, isNull } from "drizzle-orm";
import type { Db } from "./client";
import type { OwnerId } from "./conversations";
import { insertionOrder } from "./portable-sql";
import { files, presets, projects } from "./schema";

/**
 * A project's rows as a whole, for export and import (the document's format and checks are
 * lib/export; docs/api.md, "Export and import"): read for one of the owner's projects, written for
 * an imported one.
 */

const ownProject = (ownerId: OwnerId) => (ownerId === null ? isNull(projects.userId) : eq(projects.userId, ownerId));

/**
 * One of the owner's projects, the name of its preset and its files without their bytes; null
 * when there is no such project of theirs — another user's is never read, even when a
 * conversation names it.
 */
export async function readProjectRows(db: Db, { id, ownerId }: { id: string; ownerId: OwnerId }) {
  const [row] = await db
    .select({ project: getTableColumns(projects), presetName: presets.name })
    .from(projects)
    .leftJoin(presets, eq(presets.id, projects.presetId))
    .where(and(eq(projects.id, id), ownProject(ownerId)))
    .limit(1);
  if (!row) return null;
  const { bytes: _content, ...fileInfo } = getTableColumns(files);
  const fileRows = await db
    .select(fileInfo)
    .from(files)
    .where(eq(files.projectId, id))
    .orderBy(asc(files.createdAt), asc(insertionOrder(files)));
  return { project: row.project, presetName: row.presetName, files: fileRows };
}

/** The ids of the owner's projects, by name: every one, also those without conversations. */
export async function exportableProjectIds(db: Db, { ownerId }: { ownerId: OwnerId }): Promise<string[]> {
  const rows = await db
    .select({ id: projects.id })
    .from(projects)
    .where(ownProject(ownerId))
    .orderBy(asc(projects.name), asc(projects.id));
  return rows.map((row) => row.id);
}

/** The owner's preset of that name (the oldest, when several have it), or null. */
export async function presetIdNamed(db: Db, { name, ownerId }: { name: string; ownerId: OwnerId }) {
  const [row] = await db
    .select({ id: presets.id })
    .from(presets)
    .where(and(eq(presets.name, name), ownerId === null ? isNull(presets.userId) : eq(presets.userId, ownerId)))
    .orderBy(asc(presets.createdAt), asc(presets.id))
    .limit(1);
  return row?.id ?? null;
}

/**
 * Inside the import's transaction: stores an imported project (when it is new to this import) and
 * files into it, ids already new.
 */
export async function insertProjectRows(
  tx: Db,
  rows: { project?: typeof projects.$inferInsert; files: (typeof files.$inferInsert)[] },
): Promise<void> {
  if (rows.project) await tx.insert(projects).values(rows.project);
  for (const file of rows.files) await tx.insert(files).values(file);
}
