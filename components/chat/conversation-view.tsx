"use client";

import { useCallback, useEffect, useMemo, useState } from "react";
import { ModelNotice } from "@/components/models/model-notice";
import { ModelPicker } from "@/components/models/model-picker";
import { useModels } from "@/components/models/models-context";
import { useConversations } from "@/components/sidebar/conversations-context";
import { api } from "@/lib/client/api";
import { ChatHeader } from "./chat-header";
import { buildChatItems } from "./chat-items";
import { useChatRunsContext } from "./chat-runs-context";
import { Composer } from "./composer";
import { ComposerDock } from "./composer-dock";
import { MessageList } from "./message-list";
import { RunAnnouncer } from "./run-announcer";
import { ThreadEmpty, ThreadError, ThreadLoading, ThreadNotFound } from "./thread-states";
import { useConversationDetail } from "./use-conversation-detail";

const DETACHED_POLL_MS = 2000;

/** `/c/<id>`: one conversation — its thread, the live answer, the composer and the model picker. */
export function ConversationView({ id }: { id: string }) {
  const { state, reload, setConversation } = useConversationDetail(id);
  const { turns, send, stop } = useChatRunsContext();
  const conversations = useConversations();
  const { defaultModel } = useModels();
  const [notice, setNotice] = useState<string | null>(null);
  const turn = turns[id];
  const detail = state.status === "ready" ? state.detail : null;

  const items = useMemo(
    () => (detail ? buildChatItems({ messages: detail.messages, activeRunId: detail.activeRunId, turn }) : []),
    [detail, turn],
  );
  const live = items.find((item) => item.kind === "assistant" && item.status === "streaming");
  const detached = live?.kind === "assistant" && live.detached;

  // When the live answer ends, the stored messages (with ids, usage and status) take its place.
  const settled = turn && turn.status !== "streaming" ? `${turn.runId}:${turn.status}` : null;
  useEffect(() => {
    if (settled) void reload();
  }, [settled, reload]);

  // A run this page does not receive (the page was reloaded mid-answer): look again until it ends.
  useEffect(() => {
    if (!detached) return;
    const timer = setInterval(() => void reload(), DETACHED_POLL_MS);
    return () => clearInterval(timer);
  }, [detached, reload]);

  const title = conversations.items.find((c) => c.id === id)?.title ?? detail?.conversation.title ?? "";
  useEffect(() => {
    document.title = title ? `${title} · ollama-web` : "ollama-web";
  }, [title]);

  const model = detail?.conversation.model ?? defaultModel;

  const onSend = useCallback(
    async (message: string) => {
      const result = await send({ conversationId: id, message, model: model ?? undefined });
      return result.ok ? null : result.error.message;
    },
    [send, id, model],
  );

  const onStop = useCallback(async () => (await stop(id))?.message ?? null, [stop, id]);

  const onModelChange = useCallback(
    async (name: string) => {
      setNotice(null);
      try {
        const { conversation } = await api.updateConversation(id, { model: name });
        setConversation(conversation);
        conversations.upsert(conversation);
      } catch (error) {
        setNotice(`Could not switch the model: ${error instanceof Error ? error.message : String(error)}`);
      }
    },
    [id, setConversation, conversations.upsert],
  );

  return (
    <>
      <ChatHeader title={title}>
        {detail ? <ModelPicker value={model} onChange={(name) => void onModelChange(name)} /> : null}
      </ChatHeader>
      {state.status === "loading" ? <ThreadLoading /> : null}
      {state.status === "not-found" ? <ThreadNotFound /> : null}
      {state.status === "error" ? <ThreadError message={state.message} onRetry={() => void reload()} /> : null}
      {detail ? (
        <>
          {items.length === 0 ? <ThreadEmpty /> : <MessageList items={items} />}
          <RunAnnouncer turn={turn} />
          <ComposerDock notice={notice}>
            <ModelNotice model={model} />
            <Composer
              key={id}
              onSend={onSend}
              onStop={onStop}
              running={live !== undefined}
              stopping={turn?.stopping ?? false}
              autoFocus
            />
          </ComposerDock>
        </>
      ) : null}
    </>
  );
}
