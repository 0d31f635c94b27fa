"use client";

import { Archive } from "lucide-react";
import { useTranslations } from "use-intl";
import { ARCHIVED_FILTER_ID } from "@/components/shell/focus-targets";
import { cx } from "@/lib/client/cx";
import { useConversations } from "./conversations-context";

/** A toggle: the list shows the archived conversations (searched by the search box too) instead of the others. */
export function ArchivedFilter() {
  const t = useTranslations("sidebar");
  const { showArchived, setShowArchived } = useConversations();
  return (
    <button
      type="button"
      id={ARCHIVED_FILTER_ID}
      data-testid="archived-filter"
      aria-pressed={showArchived}
      onClick={() => setShowArchived(!showArchived)}
      className={cx(
        "flex items-center gap-1.5 rounded-md px-2 py-1 text-xs font-medium transition-colors",
        "focus-visible:outline-2 focus-visible:outline-offset-1 focus-visible:outline-ring",
        showArchived
          ? "bg-foreground text-background hover:bg-foreground/90"
          : "text-muted-foreground hover:bg-muted hover:text-foreground",
      )}
    >
      <Archive aria-hidden className="size-3.5" />
      {t("archivedFilter")}
    </button>
  );
}
