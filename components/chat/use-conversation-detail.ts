"use client";

import { useCallback, useEffect, useState } from "react";
import { ApiError, api, isAbort } from "@/lib/client/api";
import type { ConversationDetail, ConversationSummary } from "@/lib/client/types";

export type DetailState =
  | { status: "loading" }
  | { status: "not-found" }
  | { status: "error"; message: string }
  | { status: "ready"; detail: ConversationDetail };

/** Loads one conversation with its messages; `reload` refreshes it in place without a loading flash. */
export function useConversationDetail(id: string) {
  const [state, setState] = useState<DetailState>({ status: "loading" });

  const load = useCallback(
    async (signal?: AbortSignal) => {
      try {
        const detail = await api.conversation(id, signal);
        setState({ status: "ready", detail });
      } catch (error) {
        if (isAbort(error)) return;
        if (error instanceof ApiError && error.status === 404) setState({ status: "not-found" });
        else {
          const message = error instanceof Error ? error.message : String(error);
          // A failed background refresh keeps what is on screen.
          setState((previous) => (previous.status === "ready" ? previous : { status: "error", message }));
        }
      }
    },
    [id],
  );

  useEffect(() => {
    const controller = new AbortController();
    void load(controller.signal);
    return () => controller.abort();
  }, [load]);

  const reload = useCallback(() => load(), [load]);

  const setConversation = useCallback((conversation: ConversationSummary) => {
    setState((previous) =>
      previous.status === "ready" ? { status: "ready", detail: { ...previous.detail, conversation } } : previous,
    );
  }, []);

  return { state, reload, setConversation };
}
