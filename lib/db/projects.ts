import "server-only";
import { and, asc, eq, inArray, isNull } from "drizzle-orm";
import { AppError } from "@/lib/errors";
import type { Db } from "./client";
import { holdConversation, type OwnerId, type RunsHere, runGoingOn } from "./conversations";
import { lockedForUpdate } from "./portable-sql";
import { getPreset } from "./presets";
import { conversations, type Project, projects } from "./schema";

/**
 * A user's projects (docs/architecture.md, "Projects and memory"): a name, instructions given to the
 * model in every conversation of the project, the model or preset a new chat in it starts with, and
 * its files. Another user's project is "not found", exactly like a missing one, and a conversation
 * joins only a project of its own owner.
 */

const ownedBy = (ownerId: OwnerId) => (ownerId === null ? isNull(projects.userId) : eq(projects.userId, ownerId));

export function listProjects(db: Db, { ownerId }: { ownerId: OwnerId }): Promise<Project[]> {
  return db.select().from(projects).where(ownedBy(ownerId)).orderBy(asc(projects.name), asc(projects.id));
}

export async function getProject(db: Db, { id, ownerId }: { id: string; ownerId: OwnerId }): Promise<Project> {
  const [row] = await db
    .select()
    .from(projects)
    .where(and(eq(projects.id, id), ownedBy(ownerId)))
    .limit(1);
  if (!row) throw new AppError("not_found:project", `Project ${id} not found.`);
  return row;
}

/** Inside a transaction: holds the owner's project row until it ends (404 when it is not theirs). */
export async function holdProject(tx: Db, { id, ownerId }: { id: string; ownerId: OwnerId }): Promise<void> {
  const [held] = await lockedForUpdate(
    tx
      .select({ id: projects.id })
      .from(projects)
      .where(and(eq(projects.id, id), ownedBy(ownerId))),
  );
  if (!held) throw new AppError("not_found:project", `Project ${id} not found.`);
}

export interface ProjectFields {
  name: string;
  instructions: string;
  model: string | null;
  presetId: string | null;
  collapsed: boolean;
}

export async function createProject(
  db: Db,
  { ownerId, ...fields }: Omit<ProjectFields, "collapsed"> & { ownerId: OwnerId },
): Promise<Project> {
  if (fields.presetId !== null) await getPreset(db, { id: fields.presetId, ownerId });
  const now = Date.now();
  const row: Project = {
    id: crypto.randomUUID(),
    userId: ownerId,
    ...fields,
    collapsed: false,
    createdAt: now,
    updatedAt: now,
  };
  await db.insert(projects).values(row);
  return row;
}

export async function updateProject(
  db: Db,
  { id, ownerId, ...changes }: Partial<ProjectFields> & { id: string; ownerId: OwnerId },
): Promise<Project> {
  await getProject(db, { id, ownerId });
  if (changes.presetId) await getPreset(db, { id: changes.presetId, ownerId });
  await db
    .update(projects)
    .set({ ...changes, updatedAt: Date.now() })
    .where(eq(projects.id, id));
  return getProject(db, { id, ownerId });
}

/**
 * Deletes the project and its files. Its conversations go with it when `withConversations`, else
 * they stay, outside any project. 409 while a run of one of its conversations goes on (here, or on
 * another registered app instance) and they are to go.
 */
export async function deleteProject(
  db: Db,
  {
    id,
    ownerId,
    withConversations,
    runsHere,
  }: { id: string; ownerId: OwnerId; withConversations: boolean; runsHere: RunsHere },
): Promise<void> {
  await db.transaction(async (tx) => {
    await holdProject(tx, { id, ownerId });
    if (withConversations) {
      const members = await tx
        .select({ id: conversations.id })
        .from(conversations)
        .where(eq(conversations.projectId, id));
      const ids = members.map((member) => member.id);
      for (const conversationId of ids) await holdConversation(tx, { id: conversationId, ownerId });
      if (await runGoingOn(tx, ids, runsHere)) {
        throw new AppError(
          "conflict:run_active",
          "Stop the running answer in this project's conversations before deleting them.",
        );
      }
      if (ids.length > 0) await tx.delete(conversations).where(inArray(conversations.id, ids));
    }
    await tx.delete(projects).where(eq(projects.id, id));
  });
}

/**
 * The instructions a turn gives the model: the project's first, then the chat's own (either may be
 * missing). A conversation outside any project has only its own.
 */
export async function turnInstructions(
  db: Db,
  conversation: { projectId: string | null; settings: { instructions?: string } },
): Promise<string | undefined> {
  const own = conversation.settings.instructions?.trim() || undefined;
  if (conversation.projectId === null) return own;
  const [project] = await db
    .select({ instructions: projects.instructions })
    .from(projects)
    .where(eq(projects.id, conversation.projectId))
    .limit(1);
  const shared = project?.instructions.trim() || undefined;
  if (!shared) return own;
  return own ? `${shared}\n\n${own}` : shared;
}
