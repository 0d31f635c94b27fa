"use client";

import { useParams, usePathname, useRouter } from "next/navigation";
import { useEffect, useRef, useState } from "react";
import { useTranslations } from "use-intl";
import { useChatRunsContext } from "@/components/chat/chat-runs-context";
import { isLive } from "@/components/chat/live-turn";
import { COMPOSER_ID, focusComposerOrMain, SEARCH_ID } from "./focus-targets";
import { useShell } from "./shell-context";
import { WIDE_QUERY } from "./sidebar-collapse";

type Action = "newChat" | "search" | "composer" | "stop" | "sidebar" | "help";

/** The shortcuts, in the order the help dialog lists them; `mod` is Ctrl (⌘ on a Mac). */
const SHORTCUTS: { action: Action; keys: string[][] }[] = [
  { action: "newChat", keys: [["mod", "Shift", "O"]] },
  { action: "search", keys: [["mod", "K"]] },
  { action: "composer", keys: [["Shift", "Esc"], ["/"]] },
  { action: "stop", keys: [["Esc"]] },
  { action: "sidebar", keys: [["mod", "Shift", "S"]] },
  { action: "help", keys: [["mod", "/"]] },
];

/** A field where keys are text: there only shortcuts with Ctrl/⌘ or Shift+Esc act. */
function isTyping(target: EventTarget | null): boolean {
  if (!(target instanceof HTMLElement)) return false;
  return target.isContentEditable || ["INPUT", "TEXTAREA", "SELECT"].includes(target.tagName);
}

/**
 * Which shortcut a key press is, if any. Esc is left to whatever uses it first: a menu or field that
 * handled it (default prevented), the phone drawer, another text field than the composer.
 */
function shortcutOf(event: KeyboardEvent, drawerOpen: boolean): Action | null {
  if (event.isComposing || event.keyCode === 229 || event.altKey) return null;
  const mod = event.ctrlKey || event.metaKey;
  const slash = event.key === "/" || event.code === "Slash";
  if (mod && event.shiftKey && event.code === "KeyO") return "newChat";
  if (mod && event.shiftKey && event.code === "KeyS") return "sidebar";
  if (mod && !event.shiftKey && event.code === "KeyK") return "search";
  if (mod && slash) return "help";
  if (mod) return null;
  if (event.key === "Escape" && event.shiftKey) return "composer";
  if (event.shiftKey) return null;
  if (event.key === "/" && !isTyping(event.target)) return "composer";
  if (event.key !== "Escape" || event.defaultPrevented || drawerOpen) return null;
  const target = event.target instanceof HTMLElement ? event.target : null;
  return isTyping(target) && target?.id !== COMPOSER_ID ? null : "stop";
}

/** The app's keyboard shortcuts (listed in README.md), and the dialog that lists them (Ctrl/⌘+/). */
export function KeyboardShortcuts() {
  const t = useTranslations("shortcuts");
  const router = useRouter();
  const pathname = usePathname();
  const params = useParams<{ id?: string }>();
  const { turns, stop } = useChatRunsContext();
  const shell = useShell();
  const dialog = useRef<HTMLDialogElement>(null);
  const [mac, setMac] = useState(false);

  useEffect(() => setMac(/Mac|iPhone|iPad/.test(navigator.platform)), []);

  const conversationId = params.id ?? null;
  const running = conversationId !== null && (turns[conversationId]?.some(isLive) ?? false);

  useEffect(() => {
    const showSearch = () => {
      const wide = window.matchMedia(WIDE_QUERY).matches;
      if (wide && shell.sidebarCollapsed) shell.toggleSidebar();
      if (!wide && !shell.sidebarOpen) shell.openSidebar();
      // Once the sidebar is shown (and the drawer has focused its first control).
      requestAnimationFrame(() => document.getElementById(SEARCH_ID)?.focus());
    };
    const actions: Record<Action, () => void> = {
      newChat: () => {
        if (pathname === "/") focusComposerOrMain();
        else router.push("/");
      },
      search: showSearch,
      composer: focusComposerOrMain,
      stop: () => {
        if (conversationId && running) void stop(conversationId);
      },
      sidebar: shell.toggleSidebar,
      help: () => {
        if (dialog.current?.open) dialog.current.close();
        else dialog.current?.showModal();
      },
    };
    const onKeyDown = (event: KeyboardEvent) => {
      const action = shortcutOf(event, shell.sidebarOpen);
      if (!action || (action === "stop" && !running)) return;
      // A dialog (this one, or deleting a conversation) keeps the keys; only this one's own toggles it.
      if (action !== "help" && document.querySelector("dialog[open]")) return;
      event.preventDefault();
      actions[action]();
    };
    window.addEventListener("keydown", onKeyDown);
    return () => window.removeEventListener("keydown", onKeyDown);
  }, [router, pathname, conversationId, running, stop, shell]);

  const keyName = (key: string) => (key === "mod" ? (mac ? "⌘" : "Ctrl") : key);
  return (
    <dialog
      ref={dialog}
      aria-labelledby="shortcuts-title"
      data-testid="shortcuts-dialog"
      className="m-auto w-[min(26rem,calc(100vw-2rem))] rounded-2xl border border-border bg-background p-0 text-foreground shadow-2xl backdrop:bg-black/50"
    >
      <div className="p-5">
        <h2 id="shortcuts-title" className="text-base font-semibold">
          {t("title")}
        </h2>
        <dl className="mt-4 space-y-2.5 text-sm">
          {SHORTCUTS.map(({ action, keys }) => (
            <div key={action} className="flex items-center justify-between gap-4">
              <dt className="text-muted-foreground">{t(action)}</dt>
              <dd className="flex shrink-0 items-center gap-1.5">
                {keys.map((combo, index) => (
                  <span key={combo.join("+")} className="flex items-center gap-1">
                    {index > 0 ? <span className="px-0.5 text-xs text-muted-foreground">{t("or")}</span> : null}
                    {combo.map((key) => (
                      <kbd
                        key={key}
                        className="min-w-6 rounded-md border border-border bg-muted px-1.5 py-0.5 text-center font-sans text-xs"
                      >
                        {keyName(key)}
                      </kbd>
                    ))}
                  </span>
                ))}
              </dd>
            </div>
          ))}
        </dl>
        <div className="mt-5 flex justify-end">
          <button
            type="button"
            // biome-ignore lint/a11y/noAutofocus: a dialog's first control takes the focus
            autoFocus
            onClick={() => dialog.current?.close()}
            className="rounded-lg border border-border px-3.5 py-2 text-sm font-medium hover:bg-muted focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-ring"
          >
            {t("close")}
          </button>
        </div>
      </div>
    </dialog>
  );
}
