"use client";

import { useCallback } from "react";
import useSWR from "swr";
import { ApiError, api } from "@/lib/client/api";
import { cacheKeys } from "@/lib/client/cache-keys";
import type { ConversationDetail, ConversationSummary } from "@/lib/client/types";

export type DetailState =
  | { status: "loading" }
  | { status: "not-found" }
  | { status: "error"; error: unknown }
  | { status: "ready"; detail: ConversationDetail };

/** A conversation that is gone shows as not found; a failed background refresh keeps what is on screen. */
export function detailState(detail: ConversationDetail | undefined, error: unknown): DetailState {
  if (error instanceof ApiError && error.status === 404) return { status: "not-found" };
  if (detail) return { status: "ready", detail };
  if (error !== undefined) return { status: "error", error };
  return { status: "loading" };
}

/**
 * One conversation with its messages. It is read when the page opens and on `reload` (after a run
 * settles, a file is uploaded), never on focus: a live run's turns are merged with it meanwhile.
 */
export function useConversationDetail(id: string) {
  const { data, error, mutate } = useSWR(cacheKeys.conversation(id), () => api.conversation(id));

  const reload = useCallback(async () => {
    await mutate();
  }, [mutate]);

  const setConversation = useCallback(
    (conversation: ConversationSummary) => {
      void mutate((current) => current && { ...current, conversation }, { revalidate: false });
    },
    [mutate],
  );

  /** The conversation as the server returned it after a change (another branch shown). */
  const setDetail = useCallback(
    (detail: ConversationDetail) => {
      void mutate(detail, { revalidate: false });
    },
    [mutate],
  );

  return { state: detailState(data, error), reload, setConversation, setDetail };
}
