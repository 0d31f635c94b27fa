import type { ErrorInfo } from "@/lib/client/error-text";
import { emptyRunView, type RunView, reachedIterationLimit, timelineFromSteps } from "@/lib/client/run-view";
import type { HeldInterrupt, StoredMessage } from "@/lib/client/types";
import type { LiveTurn, SentAttachment } from "./live-turn";

/** A stored question or answer: its id and the ids of its versions, oldest first, itself included. */
export interface StoredVersion {
  id: string;
  versions: string[];
}

export type ChatItem =
  | {
      kind: "user";
      key: string;
      content: string;
      attachments: SentAttachment[];
      /** An interrupt sent while the agent works, not taken by it yet. */
      interruptPending: boolean;
      /** A stored question (not an interrupt): it can be edited and has versions. */
      stored: StoredVersion | null;
    }
  | {
      /** A follow-up the server holds unsent (its run is over): the user sends or discards it. */
      kind: "unsent";
      key: string;
      id: string;
      content: string;
    }
  | {
      kind: "assistant";
      key: string;
      status: RunView["status"];
      run: RunView;
      /** Followed live by this page (its tool timers tick). */
      live: boolean;
      reconnecting: boolean;
      /** A stored answer: it can be regenerated and has versions. */
      stored: StoredVersion | null;
    };

export type AssistantItem = Extract<ChatItem, { kind: "assistant" }>;

/** A live turn whose stream could not be resumed: it may still be running on the server. */
export const LOST: ErrorInfo = {
  code: "client:lost",
  message:
    "The connection to the server was lost before the answer finished. It may still be running: reload to see it.",
};

const assistantKey = (runId: string | null, fallback: string) => (runId ? `run:${runId}` : fallback);

/** The key of the item that shows a stored message (to open a conversation at it). */
export const storedItemKey = (message: StoredMessage) =>
  message.role === "user" ? message.id : assistantKey(message.runId, message.id);

/** A stored answer is what the model wrote; why its run failed or was cut off comes from the run. */
function assistantFromStored(message: StoredMessage): AssistantItem {
  const run = message.run;
  const fallback = run?.fallback ?? false;
  const failed = !(message.status === "complete" && !fallback);
  // A run stored without its `error` event (an older one, a shutdown) has only the English text.
  const failure = !failed
    ? null
    : (run?.failure ?? (run?.error ? { code: "client:unknown_code" as const, message: run.error } : null));
  const answer = message.content;
  const timeline = timelineFromSteps(run?.steps ?? []);
  return {
    kind: "assistant",
    key: assistantKey(message.runId, message.id),
    status: message.status,
    live: false,
    reconnecting: false,
    stored: { id: message.id, versions: message.versions },
    run: emptyRunView({
      runId: message.runId,
      userMessageId: null,
      model: run?.model ?? null,
      mode: run?.mode ?? null,
      timeline,
      answer,
      answering: answer.length > 0,
      status: message.status,
      failure,
      fallback,
      iterationLimit: reachedIterationLimit(timeline),
      usage: run?.usage ?? null,
      iterations: run?.iterations ?? null,
      elapsedMs: run?.elapsedMs ?? null,
      citations: message.citations ?? null,
      researchBrief: run?.researchBrief ?? null,
      research: run?.research ?? null,
    }),
  };
}

function assistantFromTurn(turn: LiveTurn): AssistantItem {
  return {
    kind: "assistant",
    key: assistantKey(turn.run.runId, `${turn.key}:answer`),
    status: turn.lost ? "error" : turn.run.status,
    live: !turn.lost && turn.run.status === "streaming",
    reconnecting: turn.reconnecting,
    stored: null,
    run: turn.lost ? { ...turn.run, failure: turn.run.failure ?? LOST } : turn.run,
  };
}

type FilesById = ReadonlyMap<string, SentAttachment>;

const NONE: never[] = [];

// Stored messages do not change, so their items are reused and memoised rows skip re-rendering.
const storedAssistants = new WeakMap<StoredMessage, AssistantItem>();
const storedUsers = new WeakMap<StoredMessage, ChatItem>();

function storedUser(message: StoredMessage, files: FilesById): ChatItem {
  let item = storedUsers.get(message);
  if (!item) {
    const attachments = (message.attachmentIds ?? []).flatMap((id) => files.get(id) ?? []);
    const stored = message.runId === null ? { id: message.id, versions: message.versions } : null;
    item = { kind: "user", key: message.id, content: message.content, attachments, interruptPending: false, stored };
    storedUsers.set(message, item);
  }
  return item;
}

function storedAssistant(message: StoredMessage): AssistantItem {
  let item = storedAssistants.get(message);
  if (!item) {
    item = assistantFromStored(message);
    storedAssistants.set(message, item);
  }
  return item;
}

/**
 * What the thread shows: the stored messages, then each live turn the store does not have yet (its
 * question, its run, the interrupts sent to it and not taken yet). Interrupts a run took are stored
 * as user messages of that run; they are shown inside the run, where it took them. Those the server
 * holds are shown after their run: queued (still to be read) or unsent.
 */
export function buildChatItems({
  messages,
  turns = NONE,
  files = NONE,
  interrupts = NONE,
}: {
  messages: StoredMessage[];
  turns?: LiveTurn[];
  /** The conversation's files: a stored question shows those it was sent with. */
  files?: readonly SentAttachment[];
  /** The follow-ups the server holds for the conversation. */
  interrupts?: readonly HeldInterrupt[];
}): ChatItem[] {
  const filesById: FilesById = new Map(files.map((file) => [file.id, file]));
  const storedIds = new Set(messages.map((message) => message.id));
  const answeredRuns = new Set(messages.flatMap((m) => (m.role === "assistant" && m.runId ? [m.runId] : [])));
  const shownRuns = new Set([...answeredRuns, ...turns.flatMap((turn) => (turn.run.runId ? [turn.run.runId] : []))]);

  const replaced = new Set(turns.flatMap((turn) => turn.replaces));

  const items: ChatItem[] = [];
  // Held follow-ups, by their run; those a turn here is sending, or that this page lists already, are not repeated.
  const sending = new Set(turns.flatMap((turn) => [...turn.interruptIds, ...turn.interrupts.map((sent) => sent.id)]));
  const heldByRun = new Map<string, ChatItem[]>();
  for (const held of interrupts) {
    if (sending.has(held.id)) continue;
    const item: ChatItem = held.unsent
      ? { kind: "unsent", key: `unsent:${held.id}`, id: held.id, content: held.text }
      : { kind: "user", key: held.id, content: held.text, attachments: [], interruptPending: true, stored: null };
    heldByRun.set(held.runId, [...(heldByRun.get(held.runId) ?? []), item]);
  }
  const pushHeld = (runId: string | null) => {
    if (!runId) return;
    items.push(...(heldByRun.get(runId) ?? []));
    heldByRun.delete(runId);
  };

  for (const message of messages) {
    if (replaced.has(message.id)) continue;
    if (message.role === "assistant") {
      items.push(storedAssistant(message));
      pushHeld(message.runId);
    } else if (!message.runId || !shownRuns.has(message.runId)) items.push(storedUser(message, filesById));
  }

  for (const turn of turns) {
    if (turn.run.runId !== null && answeredRuns.has(turn.run.runId)) continue;
    const questionStored = turn.run.userMessageId !== null && storedIds.has(turn.run.userMessageId);
    if (turn.question !== null && !questionStored) {
      items.push({
        kind: "user",
        key: turn.run.userMessageId ?? `${turn.key}:question`,
        content: turn.question,
        attachments: turn.attachments,
        interruptPending: false,
        stored: null,
      });
    }
    items.push(assistantFromTurn(turn));
    for (const sent of turn.interrupts) {
      items.push({
        kind: "user",
        key: sent.key,
        content: sent.text,
        attachments: [],
        interruptPending: true,
        stored: null,
      });
    }
    pushHeld(turn.run.runId);
  }
  // Those whose run shows no answer (it never started, or was replaced) come last.
  for (const rest of heldByRun.values()) items.push(...rest);
  return items;
}

/**
 * "Resume research" (docs/research.md, "Resuming"): under a stored answer of a research run that a
 * restart interrupted once it had begun gathering (its brief stored as it began).
 */
export const resumableResearch = (item: AssistantItem): boolean =>
  item.stored !== null &&
  item.status === "interrupted" &&
  item.run.mode === "research" &&
  item.run.research !== null &&
  item.run.research.phase !== "brief";
