"use client";

import { useCallback, useEffect, useMemo, useRef, useState } from "react";
import { ApiError, api, asApiError, type ChatRequest } from "@/lib/client/api";
import { followRun } from "@/lib/client/follow-run";
import type { ResearchBrief } from "@/lib/protocol/research";
import { applyToTurn, interruptAccepted, isLive, type LiveTurn, newTurn, type SentAttachment } from "./live-turn";
import { researchStartBody } from "./research/outline-draft";

export type SendResult = { ok: true } | { ok: false; error: ApiError };

export interface SendInput {
  conversationId: string;
  message: string;
  model?: string;
  /** "dag": plan first (DAG mode); "research": research mode (a brief first, then a report). */
  mode?: "auto" | "dag" | "research";
  attachments?: SentAttachment[];
  /** After this stored answer (a branch there when it is not the last); by default the end of the branch shown. */
  parentId?: string;
  /** A new version of this stored question. */
  editOf?: string;
  /** A new version of this stored answer: its question (`message`) is answered again, not sent anew. */
  regenerate?: string;
  /** Stored messages of the branch shown that the new version takes the place of: hidden meanwhile. */
  replaces?: string[];
  /** Unsent follow-ups (held by the server) this message sends. */
  interruptIds?: string[];
  /**
   * Research mode: research this brief, as the user edited the one the answer `parentId` proposed.
   * `message` is then what the live turn shows as its question (the server stores the brief as it).
   */
  research?: { parentId: string; brief: ResearchBrief };
  /** Research mode: resume the research a restart interrupted, as a new version of this stored answer. */
  resume?: string;
}

export interface ChatRuns {
  /** The turns followed live, per conversation, oldest first (the last one may be running). */
  turns: Record<string, LiveTurn[]>;
  /** Starts a run; resolves once the server accepted it (or with the error to show). */
  send(input: SendInput): Promise<SendResult>;
  /**
   * An interrupt: a message for the running agent, held by the server once accepted; without a live
   * run (or when the run ended before the server took it) it is sent as a new turn.
   */
  interrupt(input: SendInput): Promise<SendResult>;
  /** Follows a run this page did not start (reload mid-run, another tab), or resumes a lost one. */
  attach(conversationId: string, runId: string): void;
  /** Asks the server to stop the conversation's run; resolves with an error to show, if any. */
  stop(conversationId: string): Promise<ApiError | null>;
  /** Drops the finished turns kept for a conversation: it now shows another branch. */
  forgetSettled(conversationId: string): void;
}

interface Callbacks {
  onStarted?: (conversationId: string) => void;
  onSettled?: (conversationId: string) => void;
}

/** `POST /api/chat`'s body for a turn: a research start or resume, a regeneration, or a question (after `parentId`, or a new version of `editOf`). */
export function chatRequest(input: SendInput): ChatRequest {
  const {
    conversationId,
    model,
    mode,
    message,
    attachments,
    parentId,
    editOf,
    regenerate,
    interruptIds,
    research,
    resume,
  } = input;
  const attachmentIds = attachments?.length ? attachments.map((file) => file.id) : undefined;
  if (research) return researchStartBody({ conversationId, model, ...research });
  if (resume) return { conversationId, model, mode: "research", resume };
  if (regenerate) return { conversationId, model, mode, regenerate };
  return { conversationId, model, mode, message, parentId, editOf, attachmentIds, interruptIds };
}

/** Settled turns kept until the stored messages replace them. */
const KEPT_TURNS = 4;

export function useChatRuns(callbacks: Callbacks = {}): ChatRuns {
  const [turns, setTurns] = useState<Record<string, LiveTurn[]>>({});
  // Every change goes through this ref first, so a finished run reads its final state synchronously.
  const latest = useRef(turns);
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

  const mutate = useCallback((conversationId: string, change: (list: LiveTurn[]) => LiveTurn[]) => {
    const next = { ...latest.current, [conversationId]: change(latest.current[conversationId] ?? []) };
    latest.current = next;
    setTurns(next);
  }, []);

  const update = useCallback(
    (conversationId: string, key: string, change: (turn: LiveTurn) => LiveTurn) =>
      mutate(conversationId, (list) => list.map((turn) => (turn.key === key ? change(turn) : turn))),
    [mutate],
  );

  const follow = useCallback(
    async (
      turn: LiveTurn,
      controller: AbortController,
      source: { initial?: ReadableStream<Uint8Array>; after?: string },
      onStarted?: () => void,
    ) => {
      const { conversationId, key } = turn;
      controllers.current.set(key, controller);
      const outcome = await followRun({
        ...source,
        runId: turn.run.runId,
        signal: controller.signal,
        openEvents: api.runEvents,
        onReconnecting: (attempt) => update(conversationId, key, (t) => ({ ...t, reconnecting: attempt > 0 })),
        onEvent: (event) => {
          update(conversationId, key, (t) => applyToTurn(t, event));
          if (event.event === "run") {
            onStarted?.();
            callbacksRef.current.onStarted?.(conversationId);
          }
          // The title is made after `done`: the conversation list is read again to show it.
          if (event.event === "title") callbacksRef.current.onSettled?.(conversationId);
        },
      });
      controllers.current.delete(key);
      if (outcome === "aborted") return;
      if (outcome === "lost") {
        update(conversationId, key, (t) => ({ ...t, lost: true, reconnecting: false, stopping: false }));
      }
      // Follow-ups the run never took are the server's now (the next turn, or unsent): the stored
      // conversation, read again, shows them.
      callbacksRef.current.onSettled?.(conversationId);
    },
    [update],
  );

  const send = useCallback<ChatRuns["send"]>(
    async (input) => {
      const { conversationId, message, model, attachments, regenerate, resume, replaces, interruptIds } = input;
      // A regenerated (or resumed) answer's question is the stored one, shown already.
      const question = regenerate || resume ? null : message;
      const turn = newTurn({ conversationId, question, attachments, model, replaces, interruptIds });
      const controller = new AbortController();
      // A replacing turn also drops the settled turns kept here: the one it replaces is gone from
      // the store, and a kept copy of it must not come back.
      mutate(conversationId, (list) => [...(replaces ? list.filter(isLive) : list.slice(-(KEPT_TURNS - 1))), turn]);
      let body: ReadableStream<Uint8Array>;
      try {
        body = await api.chat(chatRequest(input), controller.signal);
      } catch (error) {
        mutate(conversationId, (list) => list.filter((t) => t.key !== turn.key));
        return { ok: false, error: asApiError(error) };
      }
      return new Promise<SendResult>((resolve) => {
        const started = () => resolve({ ok: true });
        void follow(turn, controller, { initial: body }, started).finally(started);
      });
    },
    [follow, mutate],
  );

  const interrupt = useCallback<ChatRuns["interrupt"]>(
    async (input) => {
      const { conversationId, message } = input;
      const live = latest.current[conversationId]?.findLast(isLive);
      if (!live) return send(input);
      const key = `${live.key}:interrupt-${Date.now()}-${live.interrupts.length}`;
      update(conversationId, live.key, (t) => ({
        ...t,
        interrupts: [...t.interrupts, { key, text: message, id: null }],
      }));
      const forget = () =>
        update(conversationId, live.key, (t) => ({ ...t, interrupts: t.interrupts.filter((s) => s.key !== key) }));
      try {
        const accepted = await api.interrupt(conversationId, message);
        // The server holds it now. A turn that ended meanwhile lists it no more: the stored
        // conversation (the next turn, or an unsent message) shows it.
        update(conversationId, live.key, (t) =>
          isLive(t)
            ? interruptAccepted(t, key, accepted.interruptId)
            : { ...t, interrupts: t.interrupts.filter((s) => s.key !== key) },
        );
        if (accepted.runId !== live.run.runId) callbacksRef.current.onSettled?.(conversationId);
        return { ok: true };
      } catch (error) {
        forget();
        // 409: the run ended before the server took it: it is a new turn.
        if (error instanceof ApiError && error.status === 409) return send(input);
        return { ok: false, error: asApiError(error) };
      }
    },
    [send, update],
  );

  const attach = useCallback<ChatRuns["attach"]>(
    (conversationId, runId) => {
      const list = latest.current[conversationId] ?? [];
      const known = list.find((turn) => turn.run.runId === runId);
      if (known && !known.lost) return;
      // A run just started here has no id yet; its own stream brings it.
      if (!known && list.some((turn) => isLive(turn) && turn.run.runId === null)) return;
      if (known) {
        update(conversationId, known.key, (t) => ({ ...t, lost: false, reconnecting: true }));
        void follow(known, new AbortController(), { after: known.run.lastEventId ?? "0" });
        return;
      }
      const turn = newTurn({ conversationId, question: null, runId });
      // A turn lost before its run had an id is this run: the stored question stands in for it now.
      const kept = (previous: LiveTurn[]) => previous.filter((t) => !(t.lost && t.run.runId === null));
      mutate(conversationId, (previous) => [...kept(previous).slice(-(KEPT_TURNS - 1)), turn]);
      void follow(turn, new AbortController(), { after: "0" });
    },
    [follow, mutate, update],
  );

  const stop = useCallback<ChatRuns["stop"]>(
    async (conversationId) => {
      const live = latest.current[conversationId]?.findLast((turn) => turn.run.status === "streaming");
      if (live) update(conversationId, live.key, (t) => ({ ...t, stopping: true }));
      try {
        await api.stop(conversationId);
        return null;
      } catch (error) {
        if (live) update(conversationId, live.key, (t) => ({ ...t, stopping: false }));
        // 409: the run ended on its own in the meantime; nothing to report.
        if (error instanceof ApiError && error.status === 409) return null;
        return asApiError(error);
      }
    },
    [update],
  );

  const forgetSettled = useCallback(
    (conversationId: string) => mutate(conversationId, (list) => list.filter(isLive)),
    [mutate],
  );

  return useMemo(
    () => ({ turns, send, interrupt, attach, stop, forgetSettled }),
    [turns, send, interrupt, attach, stop, forgetSettled],
  );
}
