"use client";

import { createContext, type ReactNode, useCallback, useContext, useEffect, useMemo, useRef, useState } from "react";
import { useSWRConfig } from "swr";
import useSWRInfinite from "swr/infinite";
import { useProjectChatLists } from "@/components/projects/use-project-chats";
import { useErrorText } from "@/components/ui/use-error-text";
import { type ApiError, api, asApiError } from "@/lib/client/api";
import { type ConversationPageKey, cacheKeys, conversationPageKey } from "@/lib/client/cache-keys";
import type { ConversationDetail, ConversationSummary } from "@/lib/client/types";
import {
  type ConversationPage,
  flattenPages,
  listStatus,
  removeFromPages,
  replaceInPages,
  upsertInPages,
} from "./conversation-pages";

export type OrganizeChange =
  | { pinned: boolean }
  | { archived: boolean }
  | { projectId: string | null }
  | { private: boolean };

export interface Conversations {
  items: ConversationSummary[];
  status: "loading" | "ready" | "error";
  error: string | null;
  query: string;
  setQuery(query: string): void;
  /** The Archived filter: the list shows the archived conversations instead of the others. */
  showArchived: boolean;
  setShowArchived(show: boolean): void;
  hasMore: boolean;
  loadingMore: boolean;
  loadMore(): Promise<void>;
  /** Re-reads the loaded pages, the project groups' first pages too (titles and order change when a run starts or ends). */
  refresh(): Promise<void>;
  upsert(conversation: ConversationSummary): void;
  rename(id: string, title: string): Promise<ApiError | null>;
  /** Pins, archives (or undoes either), moves to a project or out, makes private or not; the list and the open conversation follow without a reload. */
  organize(id: string, change: OrganizeChange): Promise<ApiError | null>;
  remove(id: string): Promise<ApiError | null>;
}

async function fetchPage([, q, archived, cursor]: ConversationPageKey): Promise<ConversationPage> {
  const page = await api.listConversations({ q, cursor, archived });
  return { q, archived, ...page };
}

/**
 * The sidebar's list: first page, search, the Archived filter, "load more", and changes written into
 * the cache — the project groups' own lists' too (`useProjectChatLists`).
 */
function useConversationsState(): Conversations {
  const errorText = useErrorText();
  const [query, setQuery] = useState("");
  const [showArchived, setShowArchived] = useState(false);
  const { mutate: mutateKey } = useSWRConfig();
  const projectLists = useProjectChatLists();
  const {
    data: pages,
    error,
    mutate,
    size,
    setSize,
  } = useSWRInfinite(conversationPageKey(query, showArchived), fetchPage, {
    // While a new search loads, the previous results stay on screen.
    keepPreviousData: true,
  });

  // A conversation archived or unarchived leaves this filter's list for the other's, whose cached pages
  // do not have it yet: the other list is read anew when the filter shows it (`mutate` is bound to the
  // list's key, so it changes with the filter).
  const otherFilterStale = useRef(false);
  useEffect(() => {
    if (!otherFilterStale.current) return;
    otherFilterStale.current = false;
    void mutate();
  }, [mutate]);

  const hasMore = Boolean(pages?.at(-1)?.nextCursor);
  const loadingMore = hasMore && pages !== undefined && size > pages.length;

  const loadMore = useCallback(async () => {
    if (hasMore) await setSize((loaded) => loaded + 1);
  }, [hasMore, setSize]);

  const refresh = useCallback(async () => {
    await Promise.all([mutate(), projectLists.revalidate()]);
  }, [mutate, projectLists]);

  const upsert = useCallback(
    (conversation: ConversationSummary) => {
      void mutate((current) => upsertInPages(current, conversation), { revalidate: false });
      void projectLists.follow(conversation);
    },
    [mutate, projectLists],
  );

  const rename = useCallback(
    async (id: string, title: string) => {
      try {
        const { conversation } = await api.updateConversation(id, { title });
        await Promise.all([
          mutate((current) => replaceInPages(current, conversation), { revalidate: false }),
          projectLists.rename(conversation),
        ]);
        return null;
      } catch (failure) {
        return asApiError(failure);
      }
    },
    [mutate, projectLists],
  );

  const organize = useCallback(
    async (id: string, change: OrganizeChange) => {
      try {
        const { conversation } = await api.updateConversation(id, change);
        if ("archived" in change) otherFilterStale.current = true;
        await Promise.all([
          mutate((current) => upsertInPages(current, conversation), { revalidate: false }),
          projectLists.follow(conversation),
        ]);
        await mutateKey(
          cacheKeys.conversation(id),
          (detail: ConversationDetail | undefined) =>
            detail && { ...detail, conversation: { ...detail.conversation, ...conversation } },
          { revalidate: false },
        );
        return null;
      } catch (failure) {
        return asApiError(failure);
      }
    },
    [mutate, mutateKey, projectLists],
  );

  const remove = useCallback(
    async (id: string) => {
      try {
        await api.deleteConversation(id);
        await Promise.all([
          mutate((current) => removeFromPages(current, id), { revalidate: false }),
          projectLists.forget(id),
        ]);
        await mutateKey(cacheKeys.conversation(id), undefined, { revalidate: false });
        return null;
      } catch (failure) {
        return asApiError(failure);
      }
    },
    [mutate, mutateKey, projectLists],
  );

  const items = useMemo(() => flattenPages(pages), [pages]);
  const status = listStatus({ pages, query, archived: showArchived, failed: error !== undefined });
  const message = error === undefined ? null : errorText(error);
  return useMemo(
    () => ({
      items,
      status,
      error: message,
      query,
      setQuery,
      showArchived,
      setShowArchived,
      hasMore,
      loadingMore,
      loadMore,
      refresh,
      upsert,
      rename,
      organize,
      remove,
    }),
    [
      items,
      status,
      message,
      query,
      showArchived,
      hasMore,
      loadingMore,
      loadMore,
      refresh,
      upsert,
      rename,
      organize,
      remove,
    ],
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
