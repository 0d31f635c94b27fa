"use client";

import { createContext, type ReactNode, useCallback, useContext, useEffect, useMemo, useRef, useState } from "react";
import { ApiError, api, isAbort } from "@/lib/client/api";
import type { ConversationSummary } from "@/lib/client/types";

export interface Conversations {
  items: ConversationSummary[];
  status: "loading" | "ready" | "error";
  error: string | null;
  query: string;
  setQuery(query: string): void;
  hasMore: boolean;
  loadingMore: boolean;
  loadMore(): Promise<void>;
  /** Re-reads the first page (titles and order change when a run starts or ends). */
  refresh(): Promise<void>;
  upsert(conversation: ConversationSummary): void;
  rename(id: string, title: string): Promise<ApiError | null>;
  remove(id: string): Promise<ApiError | null>;
}

const newestFirst = (a: ConversationSummary, b: ConversationSummary) => b.updatedAt - a.updatedAt;

function toApiError(error: unknown): ApiError {
  return error instanceof ApiError ? error : new ApiError(0, "client", String(error));
}

/** The sidebar's list: first page, search, "load more", and optimistic rename/delete. */
function useConversationsState(): Conversations {
  const [items, setItems] = useState<ConversationSummary[]>([]);
  const [status, setStatus] = useState<Conversations["status"]>("loading");
  const [error, setError] = useState<string | null>(null);
  const [query, setQuery] = useState("");
  const [cursor, setCursor] = useState<string | null>(null);
  const [loadingMore, setLoadingMore] = useState(false);
  const queryRef = useRef(query);

  useEffect(() => {
    queryRef.current = query;
    const controller = new AbortController();
    api
      .listConversations({ q: query }, controller.signal)
      .then((page) => {
        setItems(page.conversations);
        setCursor(page.nextCursor);
        setStatus("ready");
        setError(null);
      })
      .catch((failure: unknown) => {
        if (isAbort(failure)) return;
        setStatus("error");
        setError(toApiError(failure).message);
      });
    return () => controller.abort();
  }, [query]);

  const refresh = useCallback(async () => {
    try {
      const page = await api.listConversations({ q: queryRef.current });
      setItems((previous) => {
        const fresh = new Set(page.conversations.map((c) => c.id));
        const oldest = page.conversations.at(-1)?.updatedAt ?? 0;
        const older = page.nextCursor ? previous.filter((c) => !fresh.has(c.id) && c.updatedAt < oldest) : [];
        return [...page.conversations, ...older];
      });
      setCursor((previous) => previous && page.nextCursor);
      setStatus("ready");
      setError(null);
    } catch (failure) {
      setError(toApiError(failure).message);
    }
  }, []);

  const loadMore = useCallback(async () => {
    if (!cursor) return;
    setLoadingMore(true);
    try {
      const page = await api.listConversations({ q: queryRef.current, cursor });
      setItems((previous) => {
        const known = new Set(previous.map((c) => c.id));
        return [...previous, ...page.conversations.filter((c) => !known.has(c.id))];
      });
      setCursor(page.nextCursor);
    } catch (failure) {
      setError(toApiError(failure).message);
    } finally {
      setLoadingMore(false);
    }
  }, [cursor]);

  const upsert = useCallback((conversation: ConversationSummary) => {
    setItems((previous) => [conversation, ...previous.filter((c) => c.id !== conversation.id)].sort(newestFirst));
  }, []);

  const rename = useCallback(async (id: string, title: string) => {
    try {
      const { conversation } = await api.updateConversation(id, { title });
      setItems((previous) => previous.map((c) => (c.id === id ? conversation : c)));
      return null;
    } catch (failure) {
      return toApiError(failure);
    }
  }, []);

  const remove = useCallback(async (id: string) => {
    try {
      await api.deleteConversation(id);
      setItems((previous) => previous.filter((c) => c.id !== id));
      return null;
    } catch (failure) {
      return toApiError(failure);
    }
  }, []);

  const hasMore = cursor !== null;
  return useMemo(
    () => ({ items, status, error, query, setQuery, hasMore, loadingMore, loadMore, refresh, upsert, rename, remove }),
    [items, status, error, query, hasMore, loadingMore, loadMore, refresh, upsert, rename, remove],
  );
}

const ConversationsContext = createContext<Conversations | null>(null);

export function ConversationsProvider({ children }: { children: ReactNode }) {
  return <ConversationsContext value={useConversationsState()}>{children}</ConversationsContext>;
}

export function useConversations(): Conversations {
  const value = useContext(ConversationsContext);
  if (!value) throw new Error("useConversations must be used inside <AppShell>");
  return value;
}
