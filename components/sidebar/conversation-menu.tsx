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
  const itemClass =
    "flex w-full items-center gap-2 rounded-md px-2 py-1.5 text-left text-sm text-popover-foreground outline-none hover:bg-muted focus-visible:bg-muted";
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
      {(panel, close) => {
        const choose = (change: OrganizeChange) => {
          close();
          onChoose(change);
        };
        return (
          <div
            {...panel}
            role="menu"
            aria-label={t("moreActions", { title })}
            data-testid="conversation-menu"
            className="absolute top-full right-0 z-20 mt-1 w-44 rounded-lg border border-border bg-popover p-1 shadow-lg"
          >
            <button
              type="button"
              role="menuitem"
              tabIndex={-1}
              data-testid={pinned ? "unpin-conversation" : "pin-conversation"}
              className={itemClass}
              onClick={() => choose({ pinned: !pinned })}
            >
              {pinned ? <PinOff aria-hidden className="size-4" /> : <Pin aria-hidden className="size-4" />}
              {pinned ? t("unpin") : t("pin")}
            </button>
            <button
              type="button"
              role="menuitem"
              tabIndex={-1}
              data-testid={archived ? "unarchive-conversation" : "archive-conversation"}
              className={itemClass}
              onClick={() => choose({ archived: !archived })}
            >
              {archived ? (
                <ArchiveRestore aria-hidden className="size-4" />
              ) : (
                <Archive aria-hidden className="size-4" />
              )}
              {archived ? t("unarchive") : t("archive")}
            </button>
          </div>
        );
      }}
    </Menu>
  );
}
