"use client";

import { ChevronRight, Folder, MoreHorizontal, Plus, Settings2, Trash2 } from "lucide-react";
import Link from "next/link";
import { useTranslations } from "use-intl";
import { IconButton } from "@/components/ui/icon-button";
import { Menu } from "@/components/ui/menu";
import { cx } from "@/lib/client/cx";
import type { ConversationSummary, Project } from "@/lib/client/types";
import { ProjectChats } from "./project-chats";

/** Where a new chat in the project starts: the new-chat page, told the project. */
export const newChatInProjectHref = (projectId: string) => `/?project=${encodeURIComponent(projectId)}`;

/**
 * A project in the sidebar: its name folds and unfolds its chats (remembered by the server), read
 * by the group itself while it is open; a button starts a new chat in it, and its menu opens its
 * settings or deletes it.
 */
export function ProjectGroup({
  project,
  active,
  activeId,
  onToggle,
  onSettings,
  onDelete,
  onRequestDelete,
}: {
  project: Project;
  /** The open chat is in it. */
  active: boolean;
  activeId: string | null;
  onToggle: () => void;
  onSettings: () => void;
  onDelete: () => void;
  onRequestDelete: (conversation: ConversationSummary) => void;
}) {
  const t = useTranslations("projects");
  const { id, name, collapsed } = project;
  const listId = `project-${id}-chats`;
  return (
    <li data-testid="project-group" data-project-id={id} className="group/project">
      <div className="group relative flex items-center">
        <button
          type="button"
          aria-expanded={!collapsed}
          aria-controls={listId}
          aria-label={collapsed ? t("expand", { name }) : t("collapse", { name })}
          data-testid="project-toggle"
          onClick={onToggle}
          className={cx(
            "flex min-w-0 flex-1 items-center gap-1.5 rounded-lg px-2 py-1.5 text-sm outline-none transition-colors hover:bg-muted/70 focus-visible:ring-2 focus-visible:ring-ring",
            active && collapsed ? "font-medium text-foreground" : "text-foreground/85",
          )}
        >
          <ChevronRight
            aria-hidden
            className={cx("size-3.5 shrink-0 text-muted-foreground transition-transform", !collapsed && "rotate-90")}
          />
          <Folder aria-hidden className="size-4 shrink-0 text-muted-foreground" />
          <span data-testid="project-name" className="min-w-0 flex-1 truncate text-left">
            {name}
          </span>
        </button>
        <div className="invisible absolute inset-y-0 right-1 flex items-center gap-0.5 rounded-r-lg bg-linear-to-l from-muted from-70% pl-6 group-focus-within:visible group-hover:visible">
          <Link
            href={newChatInProjectHref(id)}
            aria-label={t("newChatIn", { name })}
            title={t("newChatIn", { name })}
            data-testid="project-new-chat"
            className="inline-flex size-7 items-center justify-center rounded-md text-muted-foreground hover:bg-background hover:text-foreground focus-visible:outline-2 focus-visible:outline-ring"
          >
            <Plus aria-hidden className="size-3.5" />
          </Link>
          <Menu
            kind="menu"
            className="relative"
            button={(props) => (
              <IconButton {...props} size="sm" label={t("menu", { name })} data-testid="project-menu-button">
                <MoreHorizontal aria-hidden className="size-3.5" />
              </IconButton>
            )}
          >
            {(panel, close) => (
              <div
                {...panel}
                role="menu"
                aria-label={t("menu", { name })}
                className="absolute top-full right-0 z-20 mt-1 w-48 rounded-lg border border-border bg-popover p-1 shadow-lg"
              >
                {[
                  { key: "settings", Icon: Settings2, label: t("settings"), run: onSettings },
                  { key: "delete", Icon: Trash2, label: t("delete"), run: onDelete },
                ].map(({ key, Icon, label, run }) => (
                  <button
                    key={key}
                    type="button"
                    role="menuitem"
                    tabIndex={-1}
                    data-testid={`project-${key}`}
                    className="flex w-full items-center gap-2 rounded-md px-2 py-1.5 text-left text-sm text-popover-foreground outline-none hover:bg-muted focus-visible:bg-muted"
                    onClick={() => {
                      close();
                      run();
                    }}
                  >
                    <Icon aria-hidden className="size-4" />
                    {label}
                  </button>
                ))}
              </div>
            )}
          </Menu>
        </div>
      </div>
      {collapsed ? null : (
        <div id={listId} className="ml-3 border-l border-border pl-1">
          <ProjectChats project={project} activeId={activeId} onRequestDelete={onRequestDelete} />
        </div>
      )}
    </li>
  );
}
