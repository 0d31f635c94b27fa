"use client";

import { Archive, ArchiveRestore, MoreHorizontal, Pin, PinOff } from "lucide-react";
import { type KeyboardEvent, useEffect, useId, useRef, useState } from "react";
import { useTranslations } from "use-intl";
import { IconButton } from "@/components/ui/icon-button";
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
  const [open, setOpen] = useState(false);
  const menuId = useId();
  const root = useRef<HTMLDivElement>(null);
  const button = useRef<HTMLButtonElement>(null);
  const menu = useRef<HTMLDivElement>(null);
  const { title, pinned = false, archived = false } = conversation;

  useEffect(() => {
    if (!open) return;
    menu.current?.querySelector<HTMLElement>("[role=menuitem]")?.focus();
    const onPointerDown = (event: PointerEvent) => {
      if (!root.current?.contains(event.target as Node)) setOpen(false);
    };
    document.addEventListener("pointerdown", onPointerDown);
    return () => document.removeEventListener("pointerdown", onPointerDown);
  }, [open]);

  const onMenuKeyDown = (event: KeyboardEvent<HTMLDivElement>) => {
    const items = [...(menu.current?.querySelectorAll<HTMLElement>("[role=menuitem]") ?? [])];
    const at = items.indexOf(document.activeElement as HTMLElement);
    const move: Record<string, number> = {
      ArrowDown: (at + 1) % items.length,
      ArrowUp: (at - 1 + items.length) % items.length,
      Home: 0,
      End: items.length - 1,
    };
    if (event.key in move) {
      event.preventDefault();
      items[move[event.key] as number]?.focus();
    } else if (event.key === "Escape") {
      // Used here: the drawer stays open and no running answer is stopped.
      event.preventDefault();
      event.stopPropagation();
      setOpen(false);
      button.current?.focus();
    } else if (event.key === "Tab") {
      setOpen(false);
    }
  };

  const choose = (change: OrganizeChange) => {
    setOpen(false);
    onChoose(change);
  };

  const itemClass =
    "flex w-full items-center gap-2 rounded-md px-2 py-1.5 text-left text-sm text-popover-foreground outline-none hover:bg-muted focus-visible:bg-muted";
  return (
    <div ref={root} className="relative">
      <IconButton
        ref={button}
        size="sm"
        label={t("moreActions", { title })}
        data-testid="conversation-menu-button"
        aria-haspopup="menu"
        aria-expanded={open}
        aria-controls={open ? menuId : undefined}
        onClick={() => setOpen(!open)}
      >
        <MoreHorizontal aria-hidden className="size-3.5" />
      </IconButton>
      {open ? (
        <div
          ref={menu}
          id={menuId}
          role="menu"
          tabIndex={-1}
          aria-label={t("moreActions", { title })}
          data-testid="conversation-menu"
          onKeyDown={onMenuKeyDown}
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
            {archived ? <ArchiveRestore aria-hidden className="size-4" /> : <Archive aria-hidden className="size-4" />}
            {archived ? t("unarchive") : t("archive")}
          </button>
        </div>
      ) : null}
    </div>
  );
}
