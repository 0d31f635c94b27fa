import type { StoredMessage, Usage } from "@/lib/client/types";
import type { LiveTurn } from "./use-chat-runs";

export type AssistantStatus = "streaming" | "complete" | "stopped" | "error" | "interrupted";

export type ChatItem =
  | { kind: "user"; key: string; content: string }
  | {
      kind: "assistant";
      key: string;
      content: string;
      status: AssistantStatus;
      error: string | null;
      model: string | null;
      /** How the run worked with the model: native tool calls, JSON mode, a plan (DAG)… */
      mode: string | null;
      iterations: number | null;
      usage: Usage | null;
      elapsedMs: number | null;
      /** Streaming, and the first words have arrived. */
      answering: boolean;
      /** Before the first words: what the agent is doing, if known. */
      activity: string | null;
      /** A run is going on the server but this page is not receiving its stream (e.g. after a reload). */
      detached: boolean;
    };

const assistantKey = (runId: string | null, fallback: string) => (runId ? `run:${runId}` : fallback);

/** The stored error suffix (`**Error:** …`) is shown as a notice, so it is cut from the text. */
function withoutErrorSuffix(content: string, error: string | null): string {
  const suffix = error ? `**Error:** ${error}` : null;
  return suffix && content.endsWith(suffix) ? content.slice(0, -suffix.length).trimEnd() : content;
}

function fromStored(message: StoredMessage): ChatItem {
  if (message.role === "user") return { kind: "user", key: message.id, content: message.content };
  const error = message.status === "error" ? (message.run?.error ?? null) : null;
  return {
    kind: "assistant",
    key: assistantKey(message.runId, message.id),
    content: withoutErrorSuffix(message.content, error),
    status: message.status,
    error,
    model: message.run?.model ?? null,
    mode: message.run?.mode ?? null,
    iterations: message.run?.iterations ?? null,
    usage: message.run?.usage ?? null,
    elapsedMs: message.run?.elapsedMs ?? null,
    answering: false,
    activity: null,
    detached: false,
  };
}

// Stored messages do not change, so their items are reused and memoised rows skip re-rendering.
const storedItems = new WeakMap<StoredMessage, ChatItem>();

function itemFor(message: StoredMessage): ChatItem {
  let item = storedItems.get(message);
  if (!item) {
    item = fromStored(message);
    storedItems.set(message, item);
  }
  return item;
}

/**
 * What the thread shows: the stored messages, then the live turn's question and answer unless the
 * store already has them, then a placeholder when the server runs an answer this page does not stream.
 */
export function buildChatItems({
  messages,
  activeRunId,
  turn,
}: {
  messages: StoredMessage[];
  activeRunId: string | null;
  turn: LiveTurn | undefined;
}): ChatItem[] {
  const items = messages.map(itemFor);
  const storedIds = new Set(messages.map((message) => message.id));
  const answeredRuns = new Set(messages.flatMap((m) => (m.role === "assistant" && m.runId ? [m.runId] : [])));

  if (turn) {
    if (!turn.userMessageId || !storedIds.has(turn.userMessageId)) {
      items.push({ kind: "user", key: turn.userMessageId ?? "pending-question", content: turn.question });
    }
    const answered = turn.runId !== null && answeredRuns.has(turn.runId);
    const stillRunningElsewhere = turn.lost && turn.runId !== null && turn.runId === activeRunId;
    if (!answered && !stillRunningElsewhere) {
      items.push({
        kind: "assistant",
        key: assistantKey(turn.runId, "pending-answer"),
        content: turn.content,
        status: turn.status,
        error: turn.error,
        model: turn.model,
        mode: turn.mode,
        iterations: turn.iterations,
        usage: turn.usage,
        elapsedMs: turn.elapsedMs,
        answering: turn.answering,
        activity: turn.activity,
        detached: false,
      });
    }
  }

  const turnCoversActiveRun =
    turn !== undefined &&
    !turn.lost &&
    (turn.runId === activeRunId || (turn.runId === null && turn.status === "streaming"));
  if (activeRunId && !turnCoversActiveRun) {
    items.push({
      kind: "assistant",
      key: assistantKey(activeRunId, "active-run"),
      content: "",
      status: "streaming",
      error: null,
      model: null,
      mode: null,
      iterations: null,
      usage: null,
      elapsedMs: null,
      answering: false,
      activity: null,
      detached: true,
    });
  }
  return items;
}
