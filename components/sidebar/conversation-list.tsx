"use client";

import { Loader2 } from "lucide-react";
import { useTranslations } from "use-intl";
import { ProjectsSection } from "@/components/projects/projects-section";
import { useProjects } from "@/components/projects/use-projects";
import { type DateGroup, dateGroup } from "@/lib/client/format";
import type { ConversationSummary } from "@/lib/client/types";
import { ConversationRows } from "./conversation-rows";
import { useConversations } from "./conversations-context";
import { FileHits } from "./file-hits";

const GROUP_KEYS: Record<DateGroup, string> = {
  Today: "today",
  Yesterday: "yesterday",
  "Previous 7 days": "week",
  "Previous 30 days": "month",
  Older: "older",
};

/** A heading and its conversations. */
type Section = [heading: string, conversations: ConversationSummary[]];

function groupByDate(items: ConversationSummary[]): [DateGroup, ConversationSummary[]][] {
  const groups = new Map<DateGroup, ConversationSummary[]>();
  const now = Date.now();
  for (const item of items) {
    const group = dateGroup(item.updatedAt, now);
    groups.set(group, [...(groups.get(group) ?? []), item]);
  }
  return [...groups];
}

/**
 * The conversations: the projects first, each group listing all its chats itself, then the pinned
 * ones in their own section, then the others newest first in date sections (a project's chats this
 * list loads are left to its group); with loading, empty and error states. A search or the archive
 * lists its hits without the projects.
 */
export function ConversationList({
  activeId,
  onRequestDelete,
}: {
  activeId: string | null;
  onRequestDelete: (conversation: ConversationSummary) => void;
}) {
  const { items, status, error, query, showArchived, hasMore, loadMore, loadingMore, refresh } = useConversations();
  const { projects } = useProjects();
  const t = useTranslations("sidebar");
  const grouped = !query && !showArchived;

  if (status === "loading") {
    return (
      <div aria-busy className="flex-1 space-y-2 px-4 pt-4" role="status" aria-label={t("loadingConversations")}>
        {[70, 85, 60, 75].map((width) => (
          <div key={width} className="h-4 animate-pulse rounded bg-muted" style={{ width: `${width}%` }} />
        ))}
      </div>
    );
  }
  if (status === "error") {
    return (
      <div role="alert" className="flex-1 px-4 pt-4 text-sm text-muted-foreground">
        <p>
          {t("loadFailed")} {error}
        </p>
        <button type="button" onClick={() => void refresh()} className="mt-2 font-medium text-foreground underline">
          {t("tryAgain")}
        </button>
      </div>
    );
  }
  // A chat whose project the list does not know (deleted meanwhile, not read yet) is shown with the others.
  const inProject = (item: ConversationSummary) =>
    grouped && item.projectId !== null && projects.some((project) => project.id === item.projectId);
  const outside = items.filter((item) => !inProject(item));
  const pinned = outside.filter((item) => item.pinned);
  const sections: Section[] = groupByDate(outside.filter((item) => !item.pinned)).map(([group, conversations]) => [
    t(`dateGroup.${GROUP_KEYS[group]}`),
    conversations,
  ]);
  if (pinned.length) sections.unshift([t("pinned"), pinned]);
  return (
    <nav aria-label={showArchived ? t("archivedHistory") : t("history")} className="flex-1 overflow-y-auto px-2 pb-4">
      {grouped ? <ProjectsSection activeId={activeId} onRequestDelete={onRequestDelete} /> : null}
      {items.length === 0 ? (
        <p className="px-2 pt-3 text-sm text-muted-foreground">
          {query ? t("noMatch", { query }) : showArchived ? t("emptyArchive") : t("empty")}
        </p>
      ) : null}
      {sections.map(([heading, conversations]) => (
        <section key={heading} aria-label={heading} className="mt-3 first:mt-1">
          <h2 className="px-2 pt-1 pb-1 text-xs font-medium text-muted-foreground">{heading}</h2>
          <ConversationRows conversations={conversations} activeId={activeId} onRequestDelete={onRequestDelete} />
        </section>
      ))}
      {showArchived ? null : <FileHits query={query} />}
      {hasMore ? (
        <button
          type="button"
          onClick={() => void loadMore()}
          disabled={loadingMore}
          className="mt-2 flex w-full items-center justify-center gap-2 rounded-lg px-2 py-2 text-sm text-muted-foreground hover:bg-muted hover:text-foreground focus-visible:outline-2 focus-visible:outline-ring"
        >
          {loadingMore ? <Loader2 aria-hidden className="size-4 animate-spin" /> : null}
          {t("loadOlder")}
        </button>
      ) : null}
    </nav>
  );
}
