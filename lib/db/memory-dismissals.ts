import "server-only";
import { and, asc, eq, isNull } from "drizzle-orm";
import type { Db } from "./client";
import type { OwnerId } from "./conversations";
import { ownedRun } from "./memories";
import { memoryDismissals } from "./schema";

/**
 * The proposals of `remember` a user dismissed (docs/architecture.md, "Projects and memory"): a
 * proposal is its run and its text, so its answer shows it dismissed after a reload, on any browser.
 * The run must be one of the owner's; another user's run is "not found", like a missing one.
 */

const ownedBy = (ownerId: OwnerId) =>
  ownerId === null ? isNull(memoryDismissals.userId) : eq(memoryDismissals.userId, ownerId);

/** Dismisses the run's proposal of `text`; dismissing it again changes nothing. */
export async function dismissProposal(
  db: Db,
  { ownerId, runId, text }: { ownerId: OwnerId; runId: string; text: string },
): Promise<void> {
  await ownedRun(db, { runId, ownerId });
  const [known] = await db
    .select({ id: memoryDismissals.id })
    .from(memoryDismissals)
    .where(and(eq(memoryDismissals.runId, runId), eq(memoryDismissals.text, text), ownedBy(ownerId)))
    .limit(1);
  if (known) return;
  await db
    .insert(memoryDismissals)
    .values({ id: crypto.randomUUID(), userId: ownerId, runId, text, createdAt: Date.now() });
}

/** The texts of the run's proposals the owner dismissed, in the order they were. */
export async function dismissedProposals(
  db: Db,
  { ownerId, runId }: { ownerId: OwnerId; runId: string },
): Promise<string[]> {
  await ownedRun(db, { runId, ownerId });
  const rows = await db
    .select({ text: memoryDismissals.text })
    .from(memoryDismissals)
    .where(and(eq(memoryDismissals.runId, runId), ownedBy(ownerId)))
    .orderBy(asc(memoryDismissals.createdAt), asc(memoryDismissals.id));
  return rows.map((row) => row.text);
}
