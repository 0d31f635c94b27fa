"use client";

import { Loader2 } from "lucide-react";
import { useTranslations } from "use-intl";
import { ConversationRows } from "@/components/sidebar/conversation-rows";
import type { ConversationSummary, Project } from "@/lib/client/types";
import { useProjectChats } from "./use-project-chats";

/**
 * An open project group's chats: its own list from the server, newest first, every chat of the
 * project reachable through its own "load more" (docs/architecture.md, "Projects and memory").
 */
export function ProjectChats({
  project,
  activeId,
  onRequestDelete,
}: {
  project: Project;
  activeId: string | null;
  onRequestDelete: (conversation: ConversationSummary) => void;
}) {
  const t = useTranslations("projects");
  const { chats, loaded, failed, hasMore, loadingMore, loadMore } = useProjectChats(project.id);
  if (!loaded) {
    return failed ? (
      <p role="alert" className="px-2.5 py-1.5 text-xs text-red-700 dark:text-red-400">
        {t("chatsFailed")}
      </p>
    ) : (
      <div role="status" aria-busy aria-label={t("loadingChats")} className="px-2.5 py-2">
        <div className="h-3.5 w-3/4 animate-pulse rounded bg-muted" />
      </div>
    );
  }
  if (chats.length === 0) return <p className="px-2.5 py-1.5 text-xs text-muted-foreground">{t("noChats")}</p>;
  return (
    <>
      <ConversationRows conversations={chats} activeId={activeId} onRequestDelete={onRequestDelete} />
      {hasMore ? (
        <button
          type="button"
          data-testid="project-load-more"
          onClick={() => void loadMore()}
          disabled={loadingMore}
          className="flex w-full items-center gap-2 rounded-lg px-2.5 py-1.5 text-left text-xs text-muted-foreground hover:bg-muted hover:text-foreground focus-visible:outline-2 focus-visible:outline-ring"
        >
          {loadingMore ? <Loader2 aria-hidden className="size-3.5 animate-spin" /> : null}
          {t("loadOlderChats", { name: project.name })}
        </button>
      ) : null}
    </>
  );
}
