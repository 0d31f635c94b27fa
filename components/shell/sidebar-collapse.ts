"use client";

import { useCallback, useState } from "react";

const STORAGE_KEY = "ollama-web:sidebar-collapsed";

/** Where the desktop sidebar shows (Tailwind's `md`); below it the sidebar is a drawer. */
export const WIDE_QUERY = "(min-width: 48rem)";

function readCollapsed(): boolean {
  try {
    return window.localStorage.getItem(STORAGE_KEY) === "true";
  } catch {
    return false; // storage blocked (privacy settings): the sidebar shows
  }
}

/**
 * Whether the desktop sidebar is hidden, remembered in localStorage. Read in the first render (the
 * frame is drawn in the browser only, after the session is known), so a hidden sidebar never flashes.
 */
export function useSidebarCollapsed(): [boolean, (collapsed: boolean) => void] {
  const [collapsed, setCollapsed] = useState(readCollapsed);
  const set = useCallback((next: boolean) => {
    setCollapsed(next);
    try {
      window.localStorage.setItem(STORAGE_KEY, String(next));
    } catch {
      // not remembered; still applied for this visit
    }
  }, []);
  return [collapsed, set];
}
