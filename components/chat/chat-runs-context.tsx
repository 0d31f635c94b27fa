"use client";

import { createContext, type ReactNode, useContext } from "react";
import { useConversations } from "@/components/sidebar/conversations-context";
import { type ChatRuns, useChatRuns } from "./use-chat-runs";

const ChatRunsContext = createContext<ChatRuns | null>(null);

/** Holds the live runs above the pages; the sidebar list is refreshed when a run starts or ends. */
export function ChatRunsProvider({ children }: { children: ReactNode }) {
  const { refresh } = useConversations();
  const runs = useChatRuns({ onStarted: refresh, onSettled: refresh });
  return <ChatRunsContext value={runs}>{children}</ChatRunsContext>;
}

export function useChatRunsContext(): ChatRuns {
  const value = useContext(ChatRunsContext);
  if (!value) throw new Error("useChatRunsContext must be used inside <ChatRunsProvider>");
  return value;
}
