"use client";

import {
  Archive,
  ArchiveRestore,
  Brain,
  EyeOff,
  FolderInput,
  FolderMinus,
  MoreHorizontal,
  Pin,
  PinOff,
} from "lucide-react";
import { useTranslations } from "use-intl";
import { useProjects } from "@/components/projects/use-projects";
import { IconButton } from "@/components/ui/icon-button";
import { Menu } from "@/components/ui/menu";
import type { ConversationSummary } from "@/lib/client/types";
import type { OrganizeChange } from "./conversations-context";

/**
 * A conversation's "more" menu: pin or unpin, archive or unarchive, make it private (no memory read
 * or written in it) or not, move to one of the user's projects or out of its own. A menu button: arrows, Home and End move between the items, Esc
 * closes it and gives the focus back to the button, Tab leaves it.
 */
export function ConversationMenu({
  conversation,
  onChoose,
}: {
  conversation: ConversationSummary;
  onChoose: (change: OrganizeChange) => void;
}) {
  const t = useTranslations("sidebar");
  const tp = useTranslations("projects");
  const { projects } = useProjects();
  const { title, pinned = false, archived = false, projectId, private: secret = false } = conversation;
  const own = projects.find((project) => project.id === projectId);
  const items: { id: string; Icon: typeof Pin; label: string; change: OrganizeChange }[] = [
    pinned
      ? { id: "unpin-conversation", Icon: PinOff, label: t("unpin"), change: { pinned: false } }
      : { id: "pin-conversation", Icon: Pin, label: t("pin"), change: { pinned: true } },
    archived
      ? { id: "unarchive-conversation", Icon: ArchiveRestore, label: t("unarchive"), change: { archived: false } }
      : { id: "archive-conversation", Icon: Archive, label: t("archive"), change: { archived: true } },
    secret
      ? { id: "unprivate-conversation", Icon: Brain, label: t("makeNotPrivate"), change: { private: false } }
      : { id: "private-conversation", Icon: EyeOff, label: t("makePrivate"), change: { private: true } },
    ...projects
      .filter((project) => project.id !== projectId)
      .map((project) => ({
        id: `move-to-project-${project.id}`,
        Icon: FolderInput,
        label: tp("moveTo", { name: project.name }),
        change: { projectId: project.id },
      })),
    ...(own
      ? [
          {
            id: "remove-from-project",
            Icon: FolderMinus,
            label: tp("removeFrom", { name: own.name }),
            change: { projectId: null },
          },
        ]
      : []),
  ];
  return (
    <Menu
      kind="menu"
      className="relative"
      button={(props) => (
        <IconButton {...props} size="sm" label={t("moreActions", { title })} data-testid="conversation-menu-button">
          <MoreHorizontal aria-hidden className="size-3.5" />
        </IconButton>
      )}
    >
      {(panel, close) => (
        <div
          {...panel}
          role="menu"
          aria-label={t("moreActions", { title })}
          data-testid="conversation-menu"
          className="absolute top-full right-0 z-20 mt-1 max-h-72 w-56 overflow-y-auto rounded-lg border border-border bg-popover p-1 shadow-lg"
        >
          {items.map(({ id, Icon, label, change }) => (
            <button
              key={id}
              type="button"
              role="menuitem"
              tabIndex={-1}
              data-testid={id}
              className="flex w-full items-center gap-2 rounded-md px-2 py-1.5 text-left text-sm text-popover-foreground outline-none hover:bg-muted focus-visible:bg-muted"
              onClick={() => {
                close();
                onChoose(change);
              }}
            >
              <Icon aria-hidden className="size-4 shrink-0" />
              <span className="truncate">{label}</span>
            </button>
          ))}
        </div>
      )}
    </Menu>
  );
}
