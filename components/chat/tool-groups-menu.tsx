"use client";

import { Wrench } from "lucide-react";
import { useEffect } from "react";
import useSWR, { useSWRConfig } from "swr";
import { useTranslations } from "use-intl";
import { MENU_PANEL, Menu } from "@/components/ui/menu";
import { api } from "@/lib/client/api";
import { cacheKeys } from "@/lib/client/cache-keys";
import { cx } from "@/lib/client/cx";
import type { ToolGroup } from "@/lib/client/types";

/**
 * The tool groups there are (web and each enabled MCP server), read when a composer first needs them,
 * again when the window regains focus and when the menu opens: an admin may have added, removed or
 * switched off a server meanwhile.
 */
export function useToolGroups(): ToolGroup[] {
  const { data, mutate } = useSWR(cacheKeys.toolGroups, () => api.toolGroups(), { revalidateIfStale: false });
  // SWR's own focus revalidation is off app-wide (app-shell) and deduplicated; this reads on every focus.
  useEffect(() => {
    const reload = () => void mutate();
    window.addEventListener("focus", reload);
    return () => window.removeEventListener("focus", reload);
  }, [mutate]);
  return data?.groups ?? [];
}

/**
 * Which tool groups the conversation's turns may use: a button showing how many are on, opening a
 * list of checkboxes (web, each MCP server), read again as it opens; below them, when offered, the
 * chat's other switches ("Search all my files", and for a new chat "Private chat").
 */
export function ToolGroupsMenu({
  groups,
  disabled,
  onChange,
  searchAll,
  privateChat,
}: {
  groups: ToolGroup[];
  /** The groups switched off (`web`, `mcp:<name>`). */
  disabled: readonly string[];
  onChange: (disabled: string[]) => void;
  /** "Search all my files": `search_files` reads every file of the user's, not only this chat's and its project's. */
  searchAll?: { on: boolean; onChange: (on: boolean) => void };
  /** "Private chat": no memory read or saved in it (docs/architecture.md, "Projects and memory"). */
  privateChat?: { on: boolean; onChange: (on: boolean) => void };
}) {
  const t = useTranslations("composer");
  const { mutate } = useSWRConfig();
  const on = groups.filter((group) => !disabled.includes(group.id));

  const toggle = (id: string, checked: boolean) =>
    onChange(checked ? disabled.filter((other) => other !== id) : [...disabled, id]);

  return (
    <Menu
      className="relative shrink-0"
      onOpen={() => void mutate(cacheKeys.toolGroups)}
      button={(props) => (
        <button
          {...props}
          data-testid="tool-groups-button"
          title={t("toolGroupsTitle")}
          className={cx(
            "flex h-9 items-center gap-1.5 rounded-full px-2.5 text-sm transition-colors",
            "focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-ring",
            on.length > 0
              ? "text-muted-foreground hover:bg-muted hover:text-foreground"
              : "bg-amber-50 text-amber-900 dark:bg-amber-400/10 dark:text-amber-200",
          )}
        >
          <Wrench aria-hidden className="size-4.5" />
          <span className="max-[420px]:sr-only">{t("toolGroupsLabel", { on: on.length, total: groups.length })}</span>
        </button>
      )}
    >
      {(panel) => (
        <fieldset
          {...panel}
          data-testid="tool-groups-panel"
          className={cx(
            MENU_PANEL,
            "absolute bottom-full left-0 z-20 mb-2 w-64 max-w-[calc(100vw-2rem)] space-y-1 p-2",
          )}
        >
          <legend className="sr-only">{t("toolGroupsLegend")}</legend>
          <p aria-hidden className="px-2 pt-1 pb-1.5 text-xs font-medium text-muted-foreground">
            {t("toolGroupsLegend")}
          </p>
          {groups.map((group) => (
            <label
              key={group.id}
              data-testid="tool-group"
              data-group={group.id}
              className="flex cursor-pointer items-center gap-2.5 rounded-lg px-2 py-1.5 text-sm hover:bg-muted"
            >
              <input
                type="checkbox"
                className="size-4 accent-foreground"
                checked={!disabled.includes(group.id)}
                onChange={(event) => toggle(group.id, event.target.checked)}
              />
              <span className="min-w-0 flex-1">
                <span className={cx("block truncate", group.kind === "mcp" && "font-mono text-[0.8125rem]")}>
                  {group.kind === "web" ? t("toolGroupWeb") : group.name}
                </span>
                <span className="block text-xs text-muted-foreground">
                  {group.kind === "web"
                    ? t("toolGroupWebHint")
                    : group.status === "error"
                      ? t("toolGroupUnavailable")
                      : t("toolGroupMcpHint")}
                </span>
              </span>
            </label>
          ))}
          {searchAll ? (
            <label
              data-testid="search-all-files"
              className="flex cursor-pointer items-center gap-2.5 rounded-lg border-t border-border px-2 pt-2.5 pb-1.5 text-sm hover:bg-muted"
            >
              <input
                type="checkbox"
                className="size-4 accent-foreground"
                checked={searchAll.on}
                disabled={disabled.includes("web")}
                onChange={(event) => searchAll.onChange(event.target.checked)}
              />
              <span className="min-w-0 flex-1">
                <span className="block truncate">{t("searchAllFiles")}</span>
                <span className="block text-xs text-muted-foreground">{t("searchAllFilesHint")}</span>
              </span>
            </label>
          ) : null}
          {privateChat ? (
            <label
              data-testid="private-chat-toggle"
              className="flex cursor-pointer items-center gap-2.5 rounded-lg border-t border-border px-2 pt-2.5 pb-1.5 text-sm hover:bg-muted"
            >
              <input
                type="checkbox"
                className="size-4 accent-foreground"
                checked={privateChat.on}
                onChange={(event) => privateChat.onChange(event.target.checked)}
              />
              <span className="min-w-0 flex-1">
                <span className="block truncate">{t("privateChat")}</span>
                <span className="block text-xs text-muted-foreground">{t("privateChatHint")}</span>
              </span>
            </label>
          ) : null}
        </fieldset>
      )}
    </Menu>
  );
}
