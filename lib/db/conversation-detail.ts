import "server-only";
import { and, asc, eq, inArray } from "drizzle-orm";
import type { CitationReport } from "@/lib/protocol/citations";
import { citationReportsOf } from "./citation-reports";
import type { Db } from "./client";
import { getConversation, type OwnerId } from "./conversations";
import { messageTree } from "./messages";
import { listRuns, type RunSummary, sentRunEvent, summarizeRun } from "./runs";
import { files, type Message, runEvents, runs } from "./schema";

/** What a conversation's page shows at once: the branch shown, its files, and each answer's run. */

export function listFileSummaries(db: Db, { conversationId }: { conversationId: string }) {
  return db
    .select({
      id: files.id,
      origin: files.origin,
      filename: files.filename,
      mime: files.mime,
      size: files.size,
      pageCount: files.pageCount,
      sourceUrl: files.sourceUrl,
      createdAt: files.createdAt,
    })
    .from(files)
    .where(eq(files.conversationId, conversationId))
    .orderBy(asc(files.createdAt));
}

/**
 * A message of a conversation's detail: an assistant message comes with the run that wrote it and,
 * once its citations were checked, their report (docs/research.md, "Checking citations");
 * `versions` are the ids of its versions, oldest first, itself included.
 */
export type MessageWithRun = Message & { run: RunSummary | null; versions: string[]; citations?: CitationReport };

/** A conversation with the messages of the branch shown, its files, and each assistant message's run. */
export async function getConversationDetail(db: Db, { id, ownerId }: { id: string; ownerId: OwnerId }) {
  const conversation = await getConversation(db, { id, ownerId });
  const tree = await messageTree(db, { conversationId: id });
  const runRows = await listRuns(db, { conversationId: id });
  // Steps, compactions, errors and research mode's brief and progress, so a reload shows the same turn.
  const stepEvents = await db
    .select({ runId: runEvents.runId, type: runEvents.type, seq: runEvents.seq, data: runEvents.data })
    .from(runEvents)
    .innerJoin(runs, eq(runs.id, runEvents.runId))
    .where(
      and(
        eq(runs.conversationId, id),
        inArray(runEvents.type, ["step", "compact", "plan", "step_progress", "error", "research_brief", "research"]),
      ),
    )
    .orderBy(asc(runEvents.runId), asc(runEvents.seq));
  const runsById = new Map(
    runRows.map((run) => [
      run.id,
      summarizeRun(run, stepEvents.filter((event) => event.runId === run.id).map(sentRunEvent)),
    ]),
  );
  const path = tree.path(conversation.activeLeafId);
  const reports = await citationReportsOf(
    db,
    path.filter((message) => message.role === "assistant").map((message) => message.id),
  );
  return {
    conversation,
    messages: path.map((message): MessageWithRun => {
      const citations = reports.get(message.id);
      return {
        ...message,
        run: message.role === "assistant" && message.runId ? (runsById.get(message.runId) ?? null) : null,
        versions: tree.versions(message),
        ...(citations ? { citations } : {}),
      };
    }),
    files: await listFileSummaries(db, { conversationId: id }),
    activeRunId: runRows.find((run) => run.status === "running")?.id ?? null,
  };
}
