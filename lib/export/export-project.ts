import "server-only";
import type { Db } from "@/lib/db/client";
import type { OwnerId } from "@/lib/db/conversations";
import { readProjectRows } from "@/lib/db/project-transfer";
import {
  EXPORT_VERSION,
  type ExportedFile,
  type ExportedProject,
  exportedColumns,
  fileColumns,
  PROJECT_FORMAT,
  type ProjectExport,
  projectColumns,
} from "./format";

/**
 * One of the owner's projects as its conversations carry it (lib/export/format.ts) and its files'
 * rows, their content left out (read only by `exportChunks` with files); null when the owner has
 * no such project — another user's is never read.
 */
export async function exportedProject(
  db: Db,
  { id, ownerId }: { id: string; ownerId: OwnerId },
): Promise<{ project: ExportedProject; files: ExportedFile[] } | null> {
  const rows = await readProjectRows(db, { id, ownerId });
  if (!rows) return null;
  // The rules pick exactly the columns the format declares (tested in format.test.ts).
  const project = { ...exportedColumns(rows.project, projectColumns), preset: rows.presetName } as ExportedProject;
  return { project, files: rows.files.map((file) => exportedColumns(file, fileColumns) as ExportedFile) };
}

/** The project's own document, as the archive of every conversation holds it; null when it is not the owner's. */
export async function exportProject(
  db: Db,
  { id, ownerId }: { id: string; ownerId: OwnerId },
): Promise<ProjectExport | null> {
  const exported = await exportedProject(db, { id, ownerId });
  if (!exported) return null;
  return { format: PROJECT_FORMAT, version: EXPORT_VERSION, exportedAt: Date.now(), ...exported };
}
