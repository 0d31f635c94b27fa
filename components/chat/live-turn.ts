import { applyRunEvent, emptyRunView, type RunMessage, type RunView } from "@/lib/client/run-view";
import type { ConversationFile, StepEvent } from "@/lib/client/types";

/** A file sent with a question, as its chip shows it. */
export type SentAttachment = Pick<ConversationFile, "id" | "filename" | "mime" | "size" | "pageCount">;

/** A message sent while the agent works, not yet taken by it (SPEC §9). */
export interface QueuedMessage {
  key: string;
  text: string;
}

/**
 * A turn this page follows live in one conversation: the question, then the run as it streams.
 * Turns live above the pages so a stream keeps going while the user looks at another conversation.
 */
export interface LiveTurn {
  key: string;
  conversationId: string;
  /** The question as typed; null when this page joined a run started elsewhere (reload, another tab). */
  question: string | null;
  attachments: SentAttachment[];
  run: RunView;
  queued: QueuedMessage[];
  stopping: boolean;
  /** The stream broke and the page is reconnecting to the run. */
  reconnecting: boolean;
  /** The stream could not be resumed: the run may still be going on the server. */
  lost: boolean;
  /** Stored messages this turn replaces (regenerate, edit and resend): hidden from the thread. */
  replaces: string[];
}

let turnCounter = 0;

export function newTurn({
  conversationId,
  question,
  attachments = [],
  model = null,
  runId = null,
  replaces = [],
}: {
  conversationId: string;
  question: string | null;
  attachments?: SentAttachment[];
  model?: string | null;
  runId?: string | null;
  replaces?: string[];
}): LiveTurn {
  return {
    key: `turn-${++turnCounter}`,
    conversationId,
    question,
    attachments,
    run: emptyRunView({ model, runId }),
    queued: [],
    stopping: false,
    reconnecting: false,
    lost: false,
    replaces,
  };
}

/** Removes, for each injected text, the first queued message with that text. */
export function withoutInjected(queued: QueuedMessage[], injected: string[]): QueuedMessage[] {
  const rest = [...queued];
  for (const text of injected) {
    const index = rest.findIndex((message) => message.text === text);
    if (index !== -1) rest.splice(index, 1);
  }
  return rest;
}

/** Folds an SSE event into the turn; an injected interrupt leaves the queue, as it is in the run now. */
export function applyToTurn(turn: LiveTurn, message: RunMessage, now = Date.now()): LiveTurn {
  const run = applyRunEvent(turn.run, message, now);
  const step = message.event === "step" ? (message.data as StepEvent) : null;
  const queued = step?.type === "interrupt" ? withoutInjected(turn.queued, step.messages) : turn.queued;
  return { ...turn, run, queued, stopping: run.status === "streaming" ? turn.stopping : false };
}

/**
 * What the run never took, once it is over: the server's `pendingInterrupts` and anything still
 * queued here (a message whose interrupt request lost the race with the run's end). Each once.
 */
export function untakenMessages(turn: LiveTurn): string[] {
  const pending = [...turn.run.pendingInterrupts];
  const stillQueued = withoutInjected(turn.queued, pending).map((message) => message.text);
  return [...pending, ...stillQueued];
}

export const isLive = (turn: LiveTurn) => turn.run.status === "streaming" && !turn.lost;
