"use client";

import { useChatRunsContext } from "@/components/chat/chat-runs-context";
import { isLive } from "@/components/chat/live-turn";
import type { ConversationSummary } from "@/lib/client/types";
import { ConversationItem } from "./conversation-item";

/** A list of sidebar entries, each marked while its answer runs: a date section's, a project's. */
export function ConversationRows({
  conversations,
  activeId,
  onRequestDelete,
}: {
  conversations: ConversationSummary[];
  activeId: string | null;
  onRequestDelete: (conversation: ConversationSummary) => void;
}) {
  const { turns } = useChatRunsContext();
  return (
    <ul className="space-y-px">
      {conversations.map((conversation) => (
        <ConversationItem
          key={conversation.id}
          conversation={conversation}
          active={conversation.id === activeId}
          running={turns[conversation.id]?.some(isLive) ?? false}
          onRequestDelete={onRequestDelete}
        />
      ))}
    </ul>
  );
}
