"use client";

import { Archive, ArchiveRestore, MoreHorizontal, Pin, PinOff } from "lucide-react";
import { useTranslations } from "use-intl";
import { IconButton } from "@/components/ui/icon-button";
import { Menu } from "@/components/ui/menu";
import type { ConversationSummary } from "@/lib/client/types";

export type OrganizeChange = { pinned: boolean } | { archived: boolean };

/**
 * A conversation's "more" menu: pin or unpin, archive or unarchive. A menu button: arrows, Home and
 * End move between the items, Esc closes it and gives the focus back to the button, Tab leaves it.
 */
export function ConversationMenu({
  conversation,
  onChoose,
}: {
  conversation: ConversationSummary;
  onChoose: (change: OrganizeChange) => void;
}) {
  const t = useTranslations("sidebar");
  const { title, pinned = false, archived = false } = conversation;
  const items = [
    pinned
      ? { id: "unpin-conversation", Icon: PinOff, label: t("unpin"), change: { pinned: false } }
      : { id: "pin-conversation", Icon: Pin, label: t("pin"), change: { pinned: true } },
    archived
      ? { id: "unarchive-conversation", Icon: ArchiveRestore, label: t("unarchive"), change: { archived: false } }
      : { id: "archive-conversation", Icon: Archive, label: t("archive"), change: { archived: true } },
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
          className="absolute top-full right-0 z-20 mt-1 w-44 rounded-lg border border-border bg-popover p-1 shadow-lg"
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
              <Icon aria-hidden className="size-4" />
              {label}
            </button>
          ))}
        </div>
      )}
    </Menu>
  );
}
