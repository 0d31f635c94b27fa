"use client";

import { useCallback, useEffect, useMemo, useRef, useState } from "react";
import { ApiError, api, isAbort } from "@/lib/client/api";
import { readSse } from "@/lib/client/sse";
import type { AnswerEvent, DoneEvent, ErrorEvent, RunEvent, StepEvent, Usage } from "@/lib/client/types";

export type TurnStatus = "streaming" | "complete" | "stopped" | "error";

/**
 * The turn being answered live in one conversation: the question, then the answer as it streams.
 * It lives above the pages so a stream keeps going while the user looks at another conversation.
 */
export interface LiveTurn {
  conversationId: string;
  question: string;
  runId: string | null;
  userMessageId: string | null;
  model: string | null;
  mode: string | null;
  iterations: number | null;
  content: string;
  /** The first answer delta has arrived. */
  answering: boolean;
  /** What the agent is doing before the answer starts ("Using web_search…"), from `step` events. */
  activity: string | null;
  status: TurnStatus;
  error: string | null;
  usage: Usage | null;
  elapsedMs: number | null;
  stopping: boolean;
  /** The stream ended without its `done` event: the run may still be going on the server. */
  lost: boolean;
}

export type SendResult = { ok: true } | { ok: false; error: ApiError };

export interface ChatRuns {
  turns: Record<string, LiveTurn>;
  send(input: { conversationId: string; message: string; model?: string }): Promise<SendResult>;
  /** Asks the server to stop the conversation's run; resolves with an error to show, if any. */
  stop(conversationId: string): Promise<ApiError | null>;
}

interface Callbacks {
  onStarted?: (conversationId: string) => void;
  onSettled?: (conversationId: string) => void;
}

const LOST_MESSAGE = "The connection to the server was lost before the answer finished.";

function toApiError(error: unknown): ApiError {
  return error instanceof ApiError ? error : new ApiError(0, "client", String(error));
}

export function useChatRuns(callbacks: Callbacks = {}): ChatRuns {
  const [turns, setTurns] = useState<Record<string, LiveTurn>>({});
  const controllers = useRef(new Map<string, AbortController>());
  const callbacksRef = useRef(callbacks);
  useEffect(() => {
    callbacksRef.current = callbacks;
  });
  useEffect(() => {
    const running = controllers.current;
    return () => {
      for (const controller of running.values()) controller.abort();
    };
  }, []);

  const patch = useCallback((conversationId: string, change: (turn: LiveTurn) => Partial<LiveTurn>) => {
    setTurns((previous) => {
      const turn = previous[conversationId];
      return turn ? { ...previous, [conversationId]: { ...turn, ...change(turn) } } : previous;
    });
  }, []);

  const consume = useCallback(
    async (conversationId: string, body: ReadableStream<Uint8Array>, signal: AbortSignal, started: () => void) => {
      let finished = false;
      try {
        for await (const message of readSse(body, signal)) {
          const data: unknown = JSON.parse(message.data);
          if (message.event === "run") {
            const run = data as RunEvent;
            patch(conversationId, () => ({
              runId: run.runId,
              userMessageId: run.userMessageId,
              model: run.model,
              mode: run.mode,
            }));
            started();
            callbacksRef.current.onStarted?.(conversationId);
          } else if (message.event === "step") {
            const activity = describeStep(data as StepEvent);
            if (activity) patch(conversationId, () => ({ activity }));
          } else if (message.event === "answer") {
            const answer = data as AnswerEvent;
            if (answer.status === "delta") {
              patch(conversationId, (turn) => ({ content: turn.content + answer.content, answering: true }));
            }
          } else if (message.event === "error") {
            const error = data as ErrorEvent;
            patch(conversationId, () => ({ status: "error", error: error.message }));
          } else if (message.event === "done") {
            const done = data as DoneEvent;
            finished = true;
            patch(conversationId, (turn) => ({
              status: turn.status === "error" ? "error" : done.stopped ? "stopped" : "complete",
              usage: done.usage,
              iterations: done.iterations,
              elapsedMs: done.elapsedMs,
              stopping: false,
            }));
          }
        }
      } catch (error) {
        if (!isAbort(error)) console.error("[chat] reading the answer stream failed", error);
      }
      if (!finished && !signal.aborted) {
        patch(conversationId, () => ({ status: "error", error: LOST_MESSAGE, lost: true, stopping: false }));
      }
    },
    [patch],
  );

  const send = useCallback<ChatRuns["send"]>(
    async ({ conversationId, message, model }) => {
      const controller = new AbortController();
      setTurns((previous) => ({ ...previous, [conversationId]: newTurn(conversationId, message, model) }));
      let body: ReadableStream<Uint8Array>;
      try {
        body = await api.chat({ conversationId, message, model }, controller.signal);
      } catch (error) {
        setTurns(({ [conversationId]: _failed, ...rest }) => rest);
        return { ok: false, error: toApiError(error) };
      }
      controllers.current.set(conversationId, controller);
      return new Promise<SendResult>((resolve) => {
        const started = () => resolve({ ok: true });
        void consume(conversationId, body, controller.signal, started).finally(() => {
          started();
          controllers.current.delete(conversationId);
          callbacksRef.current.onSettled?.(conversationId);
        });
      });
    },
    [consume],
  );

  const stop = useCallback<ChatRuns["stop"]>(
    async (conversationId) => {
      patch(conversationId, () => ({ stopping: true }));
      try {
        await api.stop(conversationId);
        return null;
      } catch (error) {
        patch(conversationId, () => ({ stopping: false }));
        // 409: the run ended on its own in the meantime; nothing to report.
        if (error instanceof ApiError && error.status === 409) return null;
        return toApiError(error);
      }
    },
    [patch],
  );

  return useMemo(() => ({ turns, send, stop }), [turns, send, stop]);
}

function newTurn(conversationId: string, question: string, model: string | undefined): LiveTurn {
  return {
    conversationId,
    question,
    runId: null,
    userMessageId: null,
    model: model ?? null,
    mode: null,
    iterations: null,
    content: "",
    answering: false,
    activity: null,
    status: "streaming",
    error: null,
    usage: null,
    elapsedMs: null,
    stopping: false,
    lost: false,
  };
}

function describeStep(step: StepEvent): string | null {
  if (step.type === "tool_call" && step.tool) return `Using ${step.tool}…`;
  if (step.type === "tool_result") return "Reading the results…";
  if (step.type === "thinking") return "Thinking…";
  return null;
}
