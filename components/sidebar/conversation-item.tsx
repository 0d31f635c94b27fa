"use client";

import { EyeOff, Loader2, Pencil, Trash2 } from "lucide-react";
import Link from "next/link";
import { memo, useRef, useState } from "react";
import { useTranslations } from "use-intl";
import { revealFoundAgain } from "@/components/chat/reveal-found";
import { ARCHIVED_FILTER_ID } from "@/components/shell/focus-targets";
import { IconButton } from "@/components/ui/icon-button";
import { useErrorText } from "@/components/ui/use-error-text";
import { cx } from "@/lib/client/cx";
import type { ConversationSummary } from "@/lib/client/types";
import { withoutBidiControls } from "@/lib/text/bidi-controls";
import { ConversationMenu } from "./conversation-menu";
import { type OrganizeChange, useConversations } from "./conversations-context";
import { Highlighted } from "./highlighted";
import { RenameInput } from "./rename-input";

interface ConversationItemProps {
  conversation: ConversationSummary;
  active: boolean;
  running: boolean;
  onRequestDelete: (conversation: ConversationSummary) => void;
}

/**
 * One sidebar entry: a link to the conversation, with rename (inline), delete and a menu to pin or
 * archive it. In search results it shows where the query matched and opens the conversation at the
 * matching message.
 */
export const ConversationItem = memo(function ConversationItem({
  conversation,
  active,
  running,
  onRequestDelete,
}: ConversationItemProps) {
  const t = useTranslations("sidebar");
  const errorText = useErrorText();
  const { rename, organize } = useConversations();
  const [editing, setEditing] = useState(false);
  const [failure, setFailure] = useState<string | null>(null);
  const renameButton = useRef<HTMLButtonElement>(null);
  const { id, title, match } = conversation;

  const onOrganize = async (change: OrganizeChange) => {
    setFailure(null);
    const error = await organize(id, change);
    if (error) {
      setFailure(errorText(error));
      return;
    }
    // The entry moved (to or from the pinned ones) or left the list: the focus follows it, or goes
    // to the filter that now shows it.
    requestAnimationFrame(() => {
      const moved = document.querySelector<HTMLElement>(
        `[data-conversation-id="${CSS.escape(id)}"] [data-testid="conversation-menu-button"]`,
      );
      (("archived" in change ? null : moved) ?? document.getElementById(ARCHIVED_FILTER_ID))?.focus();
    });
  };

  if (editing) {
    return (
      <li data-testid="conversation-item" className="px-1 py-0.5">
        <RenameInput
          initialTitle={title}
          onSave={(next) => rename(id, next)}
          onDone={() => {
            setEditing(false);
            requestAnimationFrame(() => renameButton.current?.focus());
          }}
        />
      </li>
    );
  }

  const href = match?.message ? `/c/${id}?m=${encodeURIComponent(match.message.messageId)}` : `/c/${id}`;
  return (
    <li
      data-testid="conversation-item"
      data-conversation-id={id}
      data-active={active || undefined}
      className="group relative"
    >
      <Link
        href={href}
        onClick={() => {
          if (`${window.location.pathname}${window.location.search}` === href) revealFoundAgain();
        }}
        aria-current={active ? "page" : undefined}
        className={cx(
          "flex items-center gap-2 rounded-lg px-2.5 py-2 text-sm outline-none transition-colors focus-visible:ring-2 focus-visible:ring-ring",
          active ? "bg-muted font-medium text-foreground" : "text-foreground/85 hover:bg-muted/70",
        )}
      >
        {running ? (
          <Loader2 aria-label={t("answering")} className="size-3.5 shrink-0 animate-spin text-muted-foreground" />
        ) : null}
        {conversation.private ? (
          <EyeOff
            aria-label={t("privateChat")}
            data-testid="private-chat"
            className="size-3.5 shrink-0 text-muted-foreground"
          />
        ) : null}
        <span className="min-w-0 flex-1">
          <span data-testid="conversation-title" className="block truncate">
            {match?.title ? <Highlighted text={title} {...match.title} /> : withoutBidiControls(title)}
          </span>
          {match?.message ? (
            <span data-testid="search-snippet" className="block truncate text-xs font-normal text-muted-foreground">
              <span className="sr-only">{t("snippetLabel")}: </span>
              <Highlighted {...match.message} />
            </span>
          ) : null}
        </span>
      </Link>
      <div
        className={cx(
          "absolute inset-y-0 right-1 flex items-center gap-0.5 rounded-r-lg bg-linear-to-l from-70% pl-6",
          // Hidden (not just transparent) so a tap cannot hit an unseen button on touch screens.
          active
            ? "from-muted"
            : "invisible from-sidebar group-focus-within:visible group-hover:visible group-hover:from-muted",
        )}
      >
        <IconButton
          ref={renameButton}
          size="sm"
          label={t("rename", { title })}
          data-testid="rename-conversation"
          onClick={() => setEditing(true)}
        >
          <Pencil aria-hidden className="size-3.5" />
        </IconButton>
        <IconButton
          size="sm"
          label={t("delete", { title })}
          data-testid="delete-conversation"
          onClick={() => onRequestDelete(conversation)}
          className="hover:text-red-600 dark:hover:text-red-400"
        >
          <Trash2 aria-hidden className="size-3.5" />
        </IconButton>
        <ConversationMenu conversation={conversation} onChoose={(change) => void onOrganize(change)} />
      </div>
      {failure ? (
        <p role="alert" className="px-2.5 pb-1 text-xs text-red-700 dark:text-red-400">
          {failure}
        </p>
      ) : null}
    </li>
  );
});
