"use client";

import { useCallback, useEffect, useState } from "react";

const STORAGE_KEY = "ollama-web:new-chat-model";

/** The model picked for the next new chat, remembered in this browser. */
export function useNewChatModel(): [string | null, (model: string) => void] {
  const [model, setModel] = useState<string | null>(null);

  useEffect(() => {
    setModel(window.localStorage.getItem(STORAGE_KEY));
  }, []);

  const choose = useCallback((next: string) => {
    setModel(next);
    try {
      window.localStorage.setItem(STORAGE_KEY, next);
    } catch {
      // storage may be disabled (private mode); the choice then lasts for this page only
    }
  }, []);

  return [model, choose];
}
