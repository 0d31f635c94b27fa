import "server-only";
import type { Db } from "@/lib/db/client";
import type { OwnerId } from "@/lib/db/conversations";
import { heldFileCount } from "@/lib/db/files";
import { insertProjectRows, presetIdNamed } from "@/lib/db/project-transfer";
import type { Config } from "@/lib/env-config";
import { type FileLimits, fileLimits, type QuotaRefusal, quotaRefusal } from "@/lib/files/quota";
import {
  type ExportedFile,
  type ExportedProject,
  type ProjectExport,
  projectDocumentSchema,
  READABLE_PROJECT_VERSIONS,
} from "./format";
import {
  because,
  bytesOf,
  type CheckedFile,
  checkFiles,
  claimedBy,
  type ImportReport,
  invalid,
  refusedByQuota,
  type SkipReason,
  unique,
  versionRefusal,
} from "./import-checks";
import { type Remap, remapIds } from "./remap-ids";

/**
 * The projects of an import (docs/api.md, "Export and import"): each project met — in its own
 * document, as the archive of every conversation holds it, or in a conversation's — is made once
 * per import, under a new id, named as exported; every conversation of it in the import joins that
 * one, and each of its files is stored once. Nothing is merged into a project that existed before
 * the import: importing the same export twice makes two projects.
 */

export interface ImportSession {
  /** The new project's id, by the id it was exported under. */
  projects: Map<string, string>;
  /** The new id of each project file stored, by the id it was exported under. */
  projectFiles: Map<string, string>;
}

export const newImportSession = (): ImportSession => ({ projects: new Map(), projectFiles: new Map() });

/** The project's files this import has not stored yet. */
export const filesToStore = (session: ImportSession, files: ExportedFile[]) =>
  files.filter((file) => !session.projectFiles.has(file.id));

/** Whether the project can take `adding` more files: a new one holds none yet, one made earlier in this import what it got. */
export async function projectFilesRefusal(
  db: Db,
  {
    session,
    project,
    adding,
    limits,
  }: { session: ImportSession; project: ExportedProject; adding: number; limits: FileLimits },
): Promise<QuotaRefusal | null> {
  const made = session.projects.get(project.id);
  const held = made ? await heldFileCount(db, { projectId: made }) : 0;
  return held + adding > limits.maxFilesPerProject
    ? { quota: "project_files", limit: limits.maxFilesPerProject }
    : null;
}

/** A project stored by a transaction, for the import to know once it has committed. */
export interface StoredProject {
  exportedId: string;
  id: string;
  name: string;
  created: boolean;
  /** Each file's exported id and new id. */
  files: [string, string][];
}

/**
 * Inside the import's transaction, its quotas checked: stores the project when it is new to this
 * import — named as exported, with the importer's own preset of the exported preset's name (or
 * none: presets are not exported), dated no later than now — and the files into it.
 */
export async function storeProject(
  tx: Db,
  {
    session,
    project,
    files,
    ownerId,
    remap,
  }: { session: ImportSession; project: ExportedProject; files: CheckedFile[]; ownerId: OwnerId; remap: Remap },
): Promise<StoredProject> {
  const made = session.projects.get(project.id);
  const id = made ?? crypto.randomUUID();
  const now = Date.now();
  const { preset, ...columns } = project;
  await insertProjectRows(tx, {
    project: made
      ? undefined
      : {
          ...columns,
          id,
          userId: ownerId,
          presetId: preset === null ? null : await presetIdNamed(tx, { name: preset, ownerId }),
          createdAt: Math.min(project.createdAt, now),
          updatedAt: Math.min(project.updatedAt, now),
        },
    files: files.map(({ base64, ...file }) => ({
      ...file,
      bytes: Buffer.from(base64, "base64"),
      id: remap.id(file.id),
      projectId: id,
    })),
  });
  return {
    exportedId: project.id,
    id,
    name: project.name,
    created: !made,
    files: files.map((file) => [file.id, remap.id(file.id)]),
  };
}

/** Once its transaction has committed: the import knows the project and its files from then on. */
export function remember(session: ImportSession, report: ImportReport, stored: StoredProject): void {
  session.projects.set(stored.exportedId, stored.id);
  for (const [exported, id] of stored.files) session.projectFiles.set(exported, id);
  if (stored.created) report.projects.push({ name: stored.name, id: stored.id });
}

/** A project's own document: checked whole, its files through the upload checks, then stored in one transaction. */
export async function importProjectDocument(
  db: Db,
  {
    document,
    ownerId,
    config,
    session,
    report,
    skip,
  }: {
    document: unknown;
    ownerId: OwnerId;
    config: Config;
    session: ImportSession;
    report: ImportReport;
    skip: (why: SkipReason) => void;
  },
): Promise<void> {
  const checked = checkProjectDocument(document, config);
  if ("code" in checked) {
    skip(checked);
    return;
  }
  const { project } = checked;
  const limits = fileLimits(config);
  const toStore = filesToStore(session, checked.files);
  // At once when its files cannot fit (by the sizes they claim), before they are decoded and checked.
  const claimed = claimedBy(toStore);
  const early =
    (await projectFilesRefusal(db, { session, project, adding: claimed.files, limits })) ??
    (await quotaRefusal(db, { ownerId, adding: { files: 0, bytes: claimed.bytes }, limits, lock: false }));
  if (early) {
    skip(refusedByQuota(early, "project"));
    return;
  }
  const files = await checkFiles(toStore, config);
  if ("code" in files) {
    skip(files);
    return;
  }
  const remap = remapIds(files.map((file) => file.id));
  const outcome = await db.transaction(async (tx) => {
    const refused =
      (await quotaRefusal(tx, { ownerId, adding: { files: 0, bytes: bytesOf(files) }, limits })) ??
      (await projectFilesRefusal(tx, { session, project, adding: files.length, limits }));
    if (refused) return { refused };
    return storeProject(tx, { session, project, files, ownerId, remap });
  });
  if ("refused" in outcome) {
    skip(refusedByQuota(outcome.refused, "project"));
    return;
  }
  remember(session, report, outcome);
  if (toStore.length > files.length) {
    const count = toStore.length - files.length;
    skip(
      because(
        "bad_request:import_files_missing",
        `${count} project file(s) were exported without their content; the project was imported without them.`,
        { count },
      ),
    );
  }
}

function checkProjectDocument(document: unknown, config: Config): ProjectExport | SkipReason {
  const refused = versionRefusal((document as { version?: unknown }).version, READABLE_PROJECT_VERSIONS);
  if (refused) return refused;
  const parsed = projectDocumentSchema({ maxInstructionsChars: config.MAX_INSTRUCTIONS_CHARS }).safeParse(document);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    return invalid(`${issue?.path.join(".") || "document"}: ${issue?.message ?? "invalid"}.`);
  }
  const twice = unique(parsed.data.files, "file");
  return twice ? invalid(twice) : parsed.data;
}
