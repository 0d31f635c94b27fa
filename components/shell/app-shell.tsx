"use client";

import { usePathname } from "next/navigation";
import { type ReactNode, useCallback, useEffect, useMemo, useState } from "react";
import { ChatRunsProvider } from "@/components/chat/chat-runs-context";
import { ModelsProvider, useModels } from "@/components/models/models-context";
import { ConversationsProvider } from "@/components/sidebar/conversations-context";
import { Sidebar } from "@/components/sidebar/sidebar";
import { OllamaBanner } from "@/components/status/ollama-banner";
import { useOllamaHealth } from "@/components/status/use-ollama-health";
import { ShellContext } from "./shell-context";

/** The app frame around every page: state providers, the sidebar, the Ollama banner, the page. */
export function AppShell({ children }: { children: ReactNode }) {
  return (
    <ConversationsProvider>
      <ModelsProvider>
        <ChatRunsProvider>
          <Frame>{children}</Frame>
        </ChatRunsProvider>
      </ModelsProvider>
    </ConversationsProvider>
  );
}

function Frame({ children }: { children: ReactNode }) {
  const { reload: reloadModels } = useModels();
  const health = useOllamaHealth(reloadModels);
  const [sidebarOpen, setSidebarOpen] = useState(false);
  const openSidebar = useCallback(() => setSidebarOpen(true), []);
  const closeSidebar = useCallback(() => setSidebarOpen(false), []);
  const shell = useMemo(() => ({ sidebarOpen, openSidebar, closeSidebar }), [sidebarOpen, openSidebar, closeSidebar]);

  // The drawer is a phone thing: when the window grows to show the sidebar anyway, it closes.
  useEffect(() => {
    const wide = window.matchMedia("(min-width: 48rem)");
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
        <Sidebar open={sidebarOpen} onClose={closeSidebar} />
        {/* While the phone drawer is open, the page behind it is out of reach (keyboard included). */}
        <div className="flex min-w-0 flex-1 flex-col" inert={sidebarOpen}>
          <OllamaBanner health={health} />
          {children}
        </div>
      </div>
    </ShellContext>
  );
}
