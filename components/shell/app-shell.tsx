"use client";

import { Loader2 } from "lucide-react";
import { usePathname, useRouter } from "next/navigation";
import { type ReactNode, useCallback, useEffect, useMemo, useState } from "react";
import { SWRConfig, type SWRConfiguration } from "swr";
import { useTranslations } from "use-intl";
import { useSession } from "@/components/auth/use-session";
import { ChatRunsProvider } from "@/components/chat/chat-runs-context";
import { useModels } from "@/components/models/use-models";
import { ConversationsProvider } from "@/components/sidebar/conversations-context";
import { Sidebar } from "@/components/sidebar/sidebar";
import { OllamaBanner } from "@/components/status/ollama-banner";
import { useOllamaHealth } from "@/components/status/use-ollama-health";
import { MAIN_ID } from "./focus-targets";
import { KeyboardShortcuts } from "./keyboard-shortcuts";
import { ShellContext } from "./shell-context";
import { useSidebarCollapsed, WIDE_QUERY } from "./sidebar-collapse";
import { SkipLink } from "./skip-link";

/**
 * How every API read behaves unless its hook says otherwise: read when a page needs it and again when
 * the UI asks (`reload`, `refresh`, a settled run), not on focus or reconnect (a conversation's
 * messages are merged with its live run meanwhile); a failed read shows its error and a retry button.
 * The health check opts in to polling and focus.
 */
const DATA_OPTIONS: SWRConfiguration = {
  revalidateOnFocus: false,
  revalidateOnReconnect: false,
  shouldRetryOnError: false,
};

/** Pages shown without the app around them (no sidebar, nothing that needs a session). */
const BARE_PATHS = new Set(["/login"]);

/**
 * The app frame around every page: who is signed in first; then state providers, the sidebar, the
 * Ollama banner, the page. Without a session (accounts on, nobody signed in) only /login shows.
 */
export function AppShell({ children }: { children: ReactNode }) {
  return (
    <SWRConfig value={DATA_OPTIONS}>
      <Gate>{children}</Gate>
    </SWRConfig>
  );
}

function Gate({ children }: { children: ReactNode }) {
  const t = useTranslations("shell");
  const pathname = usePathname();
  const router = useRouter();
  const { status, me, error, reload } = useSession();
  const bare = BARE_PATHS.has(pathname);
  const mustSignIn = me?.accountsRequired === true && me.user === null;

  useEffect(() => {
    if (bare || !mustSignIn) return;
    router.replace(`/login?next=${encodeURIComponent(`${pathname}${window.location.search}`)}`);
  }, [bare, mustSignIn, pathname, router]);

  if (bare)
    return <main className="flex h-dvh flex-col overflow-y-auto bg-background text-foreground">{children}</main>;
  if (status === "error") {
    return (
      <main className="grid h-dvh place-items-center px-6 text-center text-sm">
        <div role="alert" className="space-y-3">
          <p>{error}</p>
          <button type="button" className="font-medium underline" onClick={() => void reload()}>
            {t("retry")}
          </button>
        </div>
      </main>
    );
  }
  if (status === "loading" || mustSignIn || !me) {
    return (
      <main className="grid h-dvh place-items-center bg-background">
        <div role="status" aria-label={t("loading")}>
          <Loader2 aria-hidden className="size-5 animate-spin text-muted-foreground" />
        </div>
      </main>
    );
  }
  return (
    <ConversationsProvider>
      <ChatRunsProvider>
        <Frame>{children}</Frame>
      </ChatRunsProvider>
    </ConversationsProvider>
  );
}

function Frame({ children }: { children: ReactNode }) {
  const { reload: reloadModels } = useModels();
  const health = useOllamaHealth(reloadModels);
  const [sidebarOpen, setSidebarOpen] = useState(false);
  const [sidebarCollapsed, setSidebarCollapsed] = useSidebarCollapsed();
  const openSidebar = useCallback(() => setSidebarOpen(true), []);
  const closeSidebar = useCallback(() => setSidebarOpen(false), []);
  const toggleSidebar = useCallback(() => {
    if (window.matchMedia(WIDE_QUERY).matches) setSidebarCollapsed(!sidebarCollapsed);
    else setSidebarOpen((open) => !open);
  }, [sidebarCollapsed, setSidebarCollapsed]);
  const shell = useMemo(
    () => ({ sidebarOpen, openSidebar, closeSidebar, sidebarCollapsed, toggleSidebar }),
    [sidebarOpen, openSidebar, closeSidebar, sidebarCollapsed, toggleSidebar],
  );

  // The drawer is a phone thing: when the window grows to show the sidebar anyway, it closes.
  useEffect(() => {
    const wide = window.matchMedia(WIDE_QUERY);
    const onChange = () => {
      if (wide.matches) setSidebarOpen(false);
    };
    wide.addEventListener("change", onChange);
    return () => wide.removeEventListener("change", onChange);
  }, []);

  // The phone drawer closes once the user went somewhere.
  const pathname = usePathname();
  const [shownPath, setShownPath] = useState(pathname);
  if (pathname !== shownPath) {
    setShownPath(pathname);
    setSidebarOpen(false);
  }

  return (
    <ShellContext value={shell}>
      <div className="flex h-dvh overflow-hidden bg-background text-foreground">
        <SkipLink />
        <Sidebar open={sidebarOpen} collapsed={sidebarCollapsed} onClose={closeSidebar} />
        {/* While the phone drawer is open, the page behind it is out of reach (keyboard included). */}
        <div className="flex min-w-0 flex-1 flex-col" inert={sidebarOpen}>
          <OllamaBanner health={health} />
          <main id={MAIN_ID} tabIndex={-1} className="flex min-h-0 flex-1 flex-col outline-none">
            {children}
          </main>
        </div>
        <KeyboardShortcuts />
      </div>
    </ShellContext>
  );
}
