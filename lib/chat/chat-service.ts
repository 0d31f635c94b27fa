import "server-only";
import type { Db } from "@/lib/db/client";
import { getConversation } from "@/lib/db/conversations";
import { getConfig } from "@/lib/env-config";
import { AppError } from "@/lib/errors";
import type { ApprovalDecided, ApprovalDecision } from "@/lib/protocol/run-events";
import { processSingleton } from "@/lib/util/process-singleton";
import { beginTurn, newLiveRun, reserveSlot } from "./begin-turn";
import { type LiveRun, LiveRuns } from "./live-run";
import { type ChatInput, prepareTurn } from "./prepare-turn";

/**
 * The entry points of a conversation's turns, as the routes call them: the process's live runs,
 * starting a turn (prepared in `prepare-turn.ts`, run in `begin-turn.ts`) and stopping one.
 */

/** The process's live runs: one set, whichever route bundle asks. */
export const getLiveRuns: () => LiveRuns = processSingleton("liveRuns", () => new LiveRuns());

/**
 * Starts a run. Its slot is reserved before anything is awaited (one run per conversation, the
 * per-user and total caps hold under parallel requests); then every input is checked (unknown model
 * → 400, Ollama down → 502, a bad attachment → 400) before anything is stored, and a refused or
 * failed start gives the slot back. Its work takes turns with other starts (`StartTurns`), so a
 * burst of starts does not stall the answers already streaming. The user's message and the run are
 * stored in one transaction and the agent runs in the background; the returned live run outlives
 * the HTTP request.
 */
export async function startChat(db: Db, input: ChatInput, liveRuns = getLiveRuns()): Promise<LiveRun> {
  const found = await getConversation(db, { id: input.conversationId, ownerId: input.ownerId });
  const config = getConfig();
  const live = newLiveRun(db, found.id, input.ownerId, config);
  reserveSlot(liveRuns, live, config);
  try {
    await liveRuns.starts.turn();
    const turn = await prepareTurn(db, input, found, config);
    await liveRuns.starts.turn();
    await beginTurn(db, { live, input, turn, config, liveRuns });
  } catch (error) {
    liveRuns.release(live);
    throw error;
  }
  return live;
}

/**
 * Stops the conversation's running answer; 409 when nothing runs. A start still being prepared
 * is stopped too: it stores the question and ends at once as stopped.
 */
export function stopChat(conversationId: string, liveRuns = getLiveRuns()): { runId: string } {
  const live = liveRuns.forConversation(conversationId);
  if (!live) throw new AppError("conflict:no_active_run", "Nothing is running in this conversation.");
  live.controller.abort();
  return { runId: live.runId };
}

/**
 * The user's decision on a tool call of the conversation's run that waits for approval
 * (docs/security.md, "Tools that act need the user's consent"); 409 when nothing waits under that id.
 */
export function decideApproval(
  conversationId: string,
  { approvalId, decision, decidedBy }: { approvalId: string; decision: ApprovalDecision; decidedBy: string | null },
  liveRuns = getLiveRuns(),
): ApprovalDecided {
  const live = liveRuns.forConversation(conversationId);
  if (!live) throw new AppError("conflict:no_pending_approval", "Nothing is running in this conversation.");
  live.approvals.decide(approvalId, decision, decidedBy);
  return { approvalId, runId: live.runId, decision };
}
