import type { ConversationSummary } from "@/lib/client/types";

/**
 * One cached page of the sidebar list. It carries the search and the filter it answers, so the list
 * knows what it shows.
 */
export interface ConversationPage {
  q: string;
  archived: boolean;
  conversations: ConversationSummary[];
  nextCursor: string | null;
}

/** The server's order (docs/api.md): pinned first, then latest activity, then id. */
const listOrder = (a: ConversationSummary, b: ConversationSummary) =>
  Number(b.pinned ?? false) - Number(a.pinned ?? false) ||
  b.updatedAt - a.updatedAt ||
  (a.id < b.id ? 1 : a.id > b.id ? -1 : 0);

/** The loaded pages as one list; a conversation that moved to a later page while pages loaded shows once. */
export function flattenPages(pages: readonly ConversationPage[] | undefined): ConversationSummary[] {
  const seen = new Set<string>();
  const items: ConversationSummary[] = [];
  for (const conversation of (pages ?? []).flatMap((page) => page.conversations)) {
    if (seen.has(conversation.id)) continue;
    seen.add(conversation.id);
    items.push(conversation);
  }
  return items;
}

/**
 * A new or just-updated conversation goes to the first page in the list's order and leaves any later
 * page; one the list's filter does not show (archived, or no longer archived) leaves the list.
 */
export function upsertInPages(
  pages: ConversationPage[] | undefined,
  conversation: ConversationSummary,
): ConversationPage[] | undefined {
  if (!pages?.length) return pages;
  if ((conversation.archived ?? false) !== pages[0]?.archived) return removeFromPages(pages, conversation.id);
  return pages.map((page, index) => {
    const others = page.conversations.filter((c) => c.id !== conversation.id);
    return { ...page, conversations: index === 0 ? [conversation, ...others].sort(listOrder) : others };
  });
}

/** A renamed conversation keeps its place. */
export function replaceInPages(
  pages: ConversationPage[] | undefined,
  conversation: ConversationSummary,
): ConversationPage[] | undefined {
  return pages?.map((page) => ({
    ...page,
    conversations: page.conversations.map((c) => (c.id === conversation.id ? { ...c, ...conversation } : c)),
  }));
}

/**
 * A project's own pages after a conversation changed: it is listed there while it is in the project
 * and not archived (in the list's order, as `upsertInPages`), and leaves them otherwise.
 */
export function followInProjectPages(
  pages: ConversationPage[] | undefined,
  projectId: string,
  conversation: ConversationSummary,
): ConversationPage[] | undefined {
  return conversation.projectId === projectId
    ? upsertInPages(pages, conversation)
    : removeFromPages(pages, conversation.id);
}

export function removeFromPages(pages: ConversationPage[] | undefined, id: string): ConversationPage[] | undefined {
  return pages?.map((page) => ({ ...page, conversations: page.conversations.filter((c) => c.id !== id) }));
}

/**
 * What the sidebar shows. Once the list for the current search and filter is loaded it stays on screen (a failed
 * refresh or "load more" does not replace it); a new search shows the previous results until its own
 * arrive, or its error if it fails.
 */
export function listStatus({
  pages,
  query,
  archived,
  failed,
}: {
  pages: readonly ConversationPage[] | undefined;
  query: string;
  archived: boolean;
  failed: boolean;
}): "loading" | "ready" | "error" {
  if (pages?.[0]?.q === query && pages[0].archived === archived) return "ready";
  if (failed) return "error";
  return pages ? "ready" : "loading";
}
