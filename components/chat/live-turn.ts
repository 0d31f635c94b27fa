import { applyRunEvent, emptyRunView, type RunView } from "@/lib/client/run-view";
import type { ConversationFile } from "@/lib/client/types";
import type { RunEvent } from "@/lib/protocol/run-events";

/** A file sent with a question, as its chip shows it. */
export type SentAttachment = Pick<ConversationFile, "id" | "filename" | "mime" | "size" | "pageCount">;

/** An interrupt this page sent to the running agent, shown until the run takes it. */
export interface SentInterrupt {
  /** This page's key for it, before the server has given it an id. */
  key: string;
  text: string;
  /**
   * The server's id (from the 202): the `interrupt` step and `done` name it by this id. Null while
   * the request is on its way, and after it was refused because the run had ended.
   */
  id: string | null;
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
  /** Interrupts sent to this run and not taken by it yet. */
  interrupts: SentInterrupt[];
  stopping: boolean;
  /** The stream broke and the page is reconnecting to the run. */
  reconnecting: boolean;
  /** The stream could not be resumed: the run may still be going on the server. */
  lost: boolean;
  /** Stored messages of the branch shown this turn is a new version of (edit, regenerate): hidden from the thread. */
  replaces: string[];
  /** Unsent follow-ups this turn sends: hidden from the thread while the server still lists them. */
  interruptIds: string[];
}

let turnCounter = 0;

export function newTurn({
  conversationId,
  question,
  attachments = [],
  model = null,
  runId = null,
  replaces = [],
  interruptIds = [],
}: {
  conversationId: string;
  question: string | null;
  attachments?: SentAttachment[];
  model?: string | null;
  runId?: string | null;
  replaces?: string[];
  interruptIds?: string[];
}): LiveTurn {
  return {
    key: `turn-${++turnCounter}`,
    conversationId,
    question,
    attachments,
    run: emptyRunView({ model, runId }),
    interrupts: [],
    stopping: false,
    reconnecting: false,
    lost: false,
    replaces,
    interruptIds,
  };
}

/** The ids of the interrupts the run has taken so far. */
function takenIds(run: RunView): Set<string> {
  return new Set(
    run.timeline.flatMap((entry) => (entry.kind === "interrupt" ? entry.interrupts.map((taken) => taken.id) : [])),
  );
}

/**
 * Folds a run event into the turn; an interrupt the run took leaves the turn's list, matched by id.
 * At `done` the server holds those it did not take (the next turn, or unsent): only those whose
 * request is still on its way stay here.
 */
export function applyToTurn(turn: LiveTurn, event: RunEvent, now = Date.now()): LiveTurn {
  const run = applyRunEvent(turn.run, event, now);
  let interrupts = turn.interrupts;
  if (event.event === "step" && event.data.type === "interrupt") {
    const taken = new Set(event.data.interrupts.map((interrupt) => interrupt.id));
    interrupts = interrupts.filter((sent) => sent.id === null || !taken.has(sent.id));
  }
  if (event.event === "done") interrupts = interrupts.filter((sent) => sent.id === null);
  return { ...turn, run, interrupts, stopping: run.status === "streaming" ? turn.stopping : false };
}

/**
 * The server accepted the interrupt sent as `key` under `id`. The run may have taken it already
 * (its step can arrive before the 202); then it leaves the list at once.
 */
export function interruptAccepted(turn: LiveTurn, key: string, id: string): LiveTurn {
  const taken = takenIds(turn.run).has(id);
  const interrupts = turn.interrupts.flatMap((sent) => (sent.key !== key ? [sent] : taken ? [] : [{ ...sent, id }]));
  return { ...turn, interrupts };
}

export const isLive = (turn: LiveTurn) => turn.run.status === "streaming" && !turn.lost;
