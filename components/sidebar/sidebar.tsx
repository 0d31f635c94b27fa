"use client";

import { MessageSquarePlus, PanelLeftClose } from "lucide-react";
import Link from "next/link";
import { useParams, useRouter } from "next/navigation";
import { useCallback, useEffect, useRef, useState } from "react";
import { useTranslations } from "use-intl";
import { HIDE_SIDEBAR_ID, SHOW_SIDEBAR_ID } from "@/components/shell/focus-targets";
import { useShell } from "@/components/shell/shell-context";
import { IconButton } from "@/components/ui/icon-button";
import { useErrorText } from "@/components/ui/use-error-text";
import { cx } from "@/lib/client/cx";
import type { ConversationSummary } from "@/lib/client/types";
import { AccountFooter } from "./account-footer";
import { ArchivedFilter } from "./archived-filter";
import { ConversationList } from "./conversation-list";
import { useConversations } from "./conversations-context";
import { DeleteDialog } from "./delete-dialog";
import { SearchBox } from "./search-box";

/**
 * The conversation sidebar: a column from `md` up (unless hidden with its button), a drawer behind
 * the menu button below.
 */
export function Sidebar({ open, collapsed, onClose }: { open: boolean; collapsed: boolean; onClose: () => void }) {
  const t = useTranslations("sidebar");
  const errorText = useErrorText();
  const { toggleSidebar } = useShell();
  const { remove } = useConversations();
  const params = useParams<{ id?: string }>();
  const activeId = params.id ?? null;
  const router = useRouter();
  const [pendingDelete, setPendingDelete] = useState<ConversationSummary | null>(null);
  const newChatRef = useRef<HTMLAnchorElement>(null);
  const asideRef = useRef<HTMLElement>(null);
  const returnFocus = useRef<HTMLElement | null>(null);

  // Closing the drawer by hand (Escape, the close button, the backdrop) returns focus to the menu
  // button, once the page behind is no longer inert.
  const restoreFocus = useRef(false);
  const dismiss = useCallback(() => {
    restoreFocus.current = true;
    onClose();
  }, [onClose]);

  useEffect(() => {
    if (!open) {
      if (restoreFocus.current) returnFocus.current?.focus();
      restoreFocus.current = false;
      return;
    }
    returnFocus.current = document.activeElement instanceof HTMLElement ? document.activeElement : null;
    // Unless a shortcut already put focus in it (Ctrl/⌘+K: the search box).
    if (!asideRef.current?.contains(document.activeElement)) newChatRef.current?.focus();
    const onKeyDown = (event: KeyboardEvent) => {
      if (event.key === "Escape") dismiss();
    };
    window.addEventListener("keydown", onKeyDown);
    return () => window.removeEventListener("keydown", onKeyDown);
  }, [open, dismiss]);

  const confirmDelete = useCallback(
    async (conversation: ConversationSummary) => {
      const error = await remove(conversation.id);
      if (error) return errorText(error);
      if (conversation.id === activeId) router.push("/");
      newChatRef.current?.focus();
      return null;
    },
    [remove, activeId, router, errorText],
  );

  return (
    <>
      {open ? <div aria-hidden className="fixed inset-0 z-30 bg-black/40 md:hidden" onClick={dismiss} /> : null}
      <aside
        ref={asideRef}
        id="sidebar"
        aria-label={t("conversations")}
        className={cx(
          "fixed inset-y-0 left-0 z-40 flex w-72 flex-col border-r border-border bg-sidebar duration-200 motion-reduce:transition-none",
          "md:visible md:static md:z-auto md:w-64 md:translate-x-0 md:transition-none",
          collapsed && "md:hidden",
          // Visible at once when opening (so focus can move in), hidden only after sliding out.
          open
            ? "visible translate-x-0 shadow-xl transition-[translate] md:shadow-none"
            : "invisible -translate-x-full transition-[translate,visibility]",
        )}
      >
        <div className="flex h-14 shrink-0 items-center justify-between px-3">
          <Link
            href="/"
            className="flex items-center gap-2 rounded-md px-1.5 py-1 text-[0.9375rem] font-semibold tracking-tight focus-visible:outline-2 focus-visible:outline-ring"
          >
            <span aria-hidden className="grid size-6 place-items-center rounded-md bg-foreground text-background">
              <svg viewBox="0 0 24 24" className="size-4" fill="currentColor" aria-hidden>
                <title>ollama-web</title>
                <path d="M12 3c-3.9 0-7 2.7-7 6.3 0 1.9.9 3.6 2.4 4.8L6.8 20l4.2-2.6c.3 0 .7.1 1 .1 3.9 0 7-2.8 7-6.3S15.9 3 12 3Zm-3 7.5a1.1 1.1 0 1 1 0-2.2 1.1 1.1 0 0 1 0 2.2Zm6 0a1.1 1.1 0 1 1 0-2.2 1.1 1.1 0 0 1 0 2.2Z" />
              </svg>
            </span>
            ollama-web
          </Link>
          <IconButton label={t("closeSidebar")} className="md:hidden" onClick={dismiss}>
            <PanelLeftClose aria-hidden className="size-5" />
          </IconButton>
          <IconButton
            id={HIDE_SIDEBAR_ID}
            label={t("hideSidebar")}
            className="max-md:hidden"
            aria-expanded
            aria-controls="sidebar"
            onClick={() => {
              toggleSidebar();
              requestAnimationFrame(() => document.getElementById(SHOW_SIDEBAR_ID)?.focus());
            }}
          >
            <PanelLeftClose aria-hidden className="size-5" />
          </IconButton>
        </div>
        <div className="shrink-0 space-y-2 px-3 pb-2">
          <Link
            ref={newChatRef}
            href="/"
            data-testid="new-chat"
            className="flex items-center gap-2 rounded-lg border border-border bg-background px-3 py-2 text-sm font-medium shadow-xs transition-colors hover:bg-muted focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-ring"
          >
            <MessageSquarePlus aria-hidden className="size-4" />
            {t("newChat")}
          </Link>
          <SearchBox />
          <ArchivedFilter />
        </div>
        <ConversationList activeId={activeId} onRequestDelete={setPendingDelete} />
        <AccountFooter />
      </aside>
      <DeleteDialog
        key={pendingDelete?.id ?? "none"}
        conversation={pendingDelete}
        onClose={() => setPendingDelete(null)}
        onConfirm={confirmDelete}
      />
    </>
  );
}
