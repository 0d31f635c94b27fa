import "server-only";
import { and, asc, eq } from "drizzle-orm";
import type { Db } from "./client";
import { toolApprovals } from "./schema";

/**
 * "Always for this tool in this chat" (docs/security.md, "Tools that act need the user's consent"): the MCP
 * tools a user let run without asking in one conversation, by qualified name, with who decided and when.
 * Removed with the conversation.
 */

export async function isToolAlwaysAllowed(db: Db, { conversationId, tool }: { conversationId: string; tool: string }) {
  const [row] = await db
    .select({ tool: toolApprovals.tool })
    .from(toolApprovals)
    .where(and(eq(toolApprovals.conversationId, conversationId), eq(toolApprovals.tool, tool)))
    .limit(1);
  return row !== undefined;
}

/** Stores the approval; one already stored (a parallel call's) is kept as it was. */
export async function allowToolAlways(
  db: Db,
  { conversationId, tool, approvedBy }: { conversationId: string; tool: string; approvedBy: string | null },
): Promise<void> {
  await db
    .insert(toolApprovals)
    .values({ conversationId, tool, approvedBy, createdAt: Date.now() })
    .onConflictDoNothing();
}

export async function listAlwaysAllowedTools(db: Db, { conversationId }: { conversationId: string }) {
  return db
    .select({ tool: toolApprovals.tool, approvedBy: toolApprovals.approvedBy, createdAt: toolApprovals.createdAt })
    .from(toolApprovals)
    .where(eq(toolApprovals.conversationId, conversationId))
    .orderBy(asc(toolApprovals.tool));
}
