"use client";

import { useCallback, useMemo } from "react";
import { useSWRConfig } from "swr";
import useSWRInfinite, { unstable_serialize } from "swr/infinite";
import {
  type ConversationPage,
  flattenPages,
  followInProjectPages,
  removeFromPages,
  replaceInPages,
} from "@/components/sidebar/conversation-pages";
import { api } from "@/lib/client/api";
import { type ProjectChatsPageKey, projectChatsPageKey } from "@/lib/client/cache-keys";
import type { ConversationSummary } from "@/lib/client/types";
import { useProjects } from "./use-projects";

async function fetchProjectPage([, , project, cursor]: ProjectChatsPageKey): Promise<ConversationPage> {
  return { q: "", archived: false, ...(await api.listConversations({ project, cursor })) };
}

/**
 * A project group's own chats (`GET /api/conversations?project=<id>`, docs/api.md), newest first,
 * page by page: every chat of the project, whatever the sidebar's list has loaded. Read while its
 * group is open; the cache stays when it folds, and `useProjectChatLists` keeps it current.
 */
export function useProjectChats(projectId: string) {
  const { data: pages, error, size, setSize } = useSWRInfinite(projectChatsPageKey(projectId), fetchProjectPage);
  const chats = useMemo(() => flattenPages(pages), [pages]);
  const hasMore = Boolean(pages?.at(-1)?.nextCursor);
  const loadMore = useCallback(async () => {
    if (hasMore) await setSize((loaded) => loaded + 1);
  }, [hasMore, setSize]);
  return {
    chats,
    loaded: pages !== undefined,
    failed: error !== undefined,
    hasMore,
    loadingMore: hasMore && pages !== undefined && size > pages.length,
    loadMore,
  };
}

/**
 * The project groups' cached pages, changed with the sidebar's list (components/sidebar/conversations-context.tsx):
 * a chat created, moved, archived, renamed or deleted is written into every project's pages at
 * once, folded groups' too, and `revalidate` reads each group's first page again (a run started or
 * ended changes the order).
 */
export function useProjectChatLists() {
  const { mutate } = useSWRConfig();
  const { projects } = useProjects();
  const each = useCallback(
    (change: (pages: ConversationPage[] | undefined, projectId: string) => ConversationPage[] | undefined) =>
      Promise.all(
        projects.map(({ id }) =>
          mutate<ConversationPage[]>(unstable_serialize(projectChatsPageKey(id)), (pages) => change(pages, id), {
            revalidate: false,
          }),
        ),
      ),
    [mutate, projects],
  );
  return useMemo(
    () => ({
      follow: (conversation: ConversationSummary) =>
        each((pages, projectId) => followInProjectPages(pages, projectId, conversation)),
      rename: (conversation: ConversationSummary) => each((pages) => replaceInPages(pages, conversation)),
      forget: (conversationId: string) => each((pages) => removeFromPages(pages, conversationId)),
      revalidate: () => Promise.all(projects.map(({ id }) => mutate(unstable_serialize(projectChatsPageKey(id))))),
    }),
    [each, mutate, projects],
  );
}
