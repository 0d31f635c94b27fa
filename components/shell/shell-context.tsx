"use client";

import { createContext, useContext } from "react";

export interface Shell {
  /** The phone drawer is open. */
  sidebarOpen: boolean;
  openSidebar(): void;
  closeSidebar(): void;
  /** The desktop sidebar is hidden (remembered in this browser). */
  sidebarCollapsed: boolean;
  /** Hides or shows the sidebar: the desktop column when wide, the drawer on a phone. */
  toggleSidebar(): void;
}

export const ShellContext = createContext<Shell | null>(null);

export function useShell(): Shell {
  const value = useContext(ShellContext);
  if (!value) throw new Error("useShell must be used inside <AppShell>");
  return value;
}
