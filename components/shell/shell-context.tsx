"use client";

import { createContext, useContext } from "react";

export interface Shell {
  sidebarOpen: boolean;
  openSidebar(): void;
  closeSidebar(): void;
}

export const ShellContext = createContext<Shell | null>(null);

export function useShell(): Shell {
  const value = useContext(ShellContext);
  if (!value) throw new Error("useShell must be used inside <AppShell>");
  return value;
}
