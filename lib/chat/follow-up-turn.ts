import "server-only";
import type { Db } from "@/lib/db/client";
import { getConversation } from "@/lib/db/conversations";
import type { Interrupt } from "@/lib/protocol/run-events";
import { type ChatInput, type PreparedTurn, type TurnQuestion, toolCallingFor } from "./prepare-turn";

/**
 * The turn the server starts by itself after a completed run whose interrupts it never took: one
 * user message after the run's answer, their texts in the order they were sent, answered by the
 * same models, with no attachments.
 */
export async function followUpTurn(
  db: Db,
  pending: Interrupt[],
  { answerId, input, turn }: { answerId: string; input: ChatInput; turn: PreparedTurn },
): Promise<{ input: ChatInput; turn: PreparedTurn }> {
  const text = pending.map((interrupt) => interrupt.text).join("\n\n");
  const question: TurnQuestion = { stored: null, parentId: answerId, text, attachmentIds: [] };
  // The next turn runs as the conversation remembers "Plan first", whatever mode the ended run had.
  const { planFirst } = await getConversation(db, { id: input.conversationId, ownerId: input.ownerId });
  return {
    input: {
      ownerId: input.ownerId,
      conversationId: input.conversationId,
      message: text,
      parentId: answerId,
      interruptIds: pending.map((interrupt) => interrupt.id),
      mode: planFirst ? "dag" : undefined,
    },
    turn: {
      ...turn,
      // Follow-ups of a research run are an ordinary turn: they ask about the report.
      mode: planFirst ? "dag" : turn.mode === "research" ? toolCallingFor(undefined, turn.loopLlm) : turn.mode,
      research: undefined,
      question,
      attachments: [],
      images: [],
    },
  };
}
