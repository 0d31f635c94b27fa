"use client";

import { useCallback, useEffect, useMemo, useState } from "react";
import { useTranslations } from "use-intl";
import { ModelNotice } from "@/components/models/model-notice";
import { ModelPicker } from "@/components/models/model-picker";
import { useModels } from "@/components/models/use-models";
import { useConversations } from "@/components/sidebar/conversations-context";
import { api } from "@/lib/client/api";
import { DropOverlay } from "./attachments/drop-overlay";
import { mentionFiles } from "./attachments/file-facts";
import { useAttachments } from "./attachments/use-attachments";
import { useFileDrop } from "./attachments/use-file-drop";
import { ChatHeader } from "./chat-header";
import { buildChatItems } from "./chat-items";
import { useChatRunsContext } from "./chat-runs-context";
import { Composer } from "./composer";
import { ComposerDock } from "./composer-dock";
import { ConversationFilesContext } from "./files/conversation-files-context";
import { FilesMenu } from "./files/files-menu";
import { isLive, type LiveTurn } from "./live-turn";
import { type LastTurnActions, MessageList } from "./message-list";
import { RunAnnouncer } from "./run-announcer";
import { ThreadEmpty, ThreadError, ThreadLoading, ThreadNotFound } from "./thread-states";
import { useConversationDetail } from "./use-conversation-detail";

const NO_TURNS: LiveTurn[] = [];

/** `/c/<id>`: one conversation — its thread, the live run, the composer, its files and model. */
export function ConversationView({ id }: { id: string }) {
  const { state, reload, setConversation } = useConversationDetail(id);
  const { turns: allTurns, drafts, takeDraft, send, interrupt, attach, stop } = useChatRunsContext();
  const t = useTranslations("models");
  const conversations = useConversations();
  const { defaultModel, reload: reloadModels } = useModels();
  const [notice, setNotice] = useState<string | null>(null);
  const turns = allTurns[id] ?? NO_TURNS;
  const detail = state.status === "ready" ? state.detail : null;
  const files = detail?.files;

  const items = useMemo(
    () => (detail ? buildChatItems({ messages: detail.messages, turns, files: detail.files }) : []),
    [detail, turns],
  );
  const live = turns.findLast(isLive);
  const last = turns.at(-1);

  // A run that found its model gone: read the list again, so the composer offers the replacement.
  const modelGone = last?.run.errorCode === "bad_request:unknown_model";
  useEffect(() => {
    if (modelGone) reloadModels();
  }, [modelGone, reloadModels]);

  // When a live turn ends, the stored messages (with ids, usage and status) take its place.
  const settled = turns.map((turn) => (isLive(turn) ? "" : `${turn.key}:${turn.run.status}:${turn.lost}`)).join("|");
  useEffect(() => {
    if (settled.replaceAll("|", "")) void reload();
  }, [settled, reload]);

  // A run this page does not follow (reload mid-run, another tab, a lost stream): follow it.
  const activeRunId = detail?.activeRunId ?? null;
  const lost = turns.some((turn) => turn.lost);
  // biome-ignore lint/correctness/useExhaustiveDependencies: a lost stream is retried when it becomes lost
  useEffect(() => {
    if (activeRunId) attach(id, activeRunId);
  }, [activeRunId, lost, id, attach]);

  const title = conversations.items.find((c) => c.id === id)?.title ?? detail?.conversation.title ?? "";
  useEffect(() => {
    document.title = title ? `${title} · ollama-web` : "ollama-web";
  }, [title]);

  const model = detail?.conversation.model ?? defaultModel;
  const attachments = useAttachments({ conversationId: async () => id, onUploaded: reload });
  const { dragging, handlers } = useFileDrop(attachments.add);
  const filesContext = useMemo(
    () => ({ conversationId: id, names: new Map((files ?? []).map((file) => [file.id, file.filename])) }),
    [id, files],
  );

  // "Plan first" as the user last set it here, else as the conversation remembers it.
  const [planFirstChoice, setPlanFirst] = useState<boolean | null>(null);
  const planFirst = planFirstChoice ?? detail?.conversation.planFirst ?? false;
  const mode = planFirst ? "dag" : "auto";

  const { ready, clear } = attachments;
  const onSend = useCallback(
    async (message: string) => {
      const input = { conversationId: id, model: model ?? undefined, mode } as const;
      // While the agent works, the message is an interrupt for it instead of a new turn.
      const result = live
        ? await interrupt({ ...input, message: mentionFiles(message, ready) })
        : await send({ ...input, message, attachments: ready });
      if (!result.ok) {
        if (result.error.code === "conflict:model_missing") reloadModels();
        return result.error.message;
      }
      clear();
      return null;
    },
    [send, interrupt, live, id, model, mode, ready, clear, reloadModels],
  );

  // Regenerate and edit-and-resend act on the last stored turn, once nothing runs.
  const lastTurn = useMemo(() => {
    const messages = detail?.messages ?? [];
    const start = messages.findLastIndex((message) => message.role === "user" && message.runId === null);
    if (start === -1 || messages.at(-1)?.role !== "assistant") return null;
    const question = messages[start];
    // The new turn is sent with the same files (an image must reach the vision model again).
    const sentIds = new Set(question?.attachmentIds ?? []);
    return {
      question: question?.content ?? "",
      ids: messages.slice(start).map((message) => message.id),
      attachments: (detail?.files ?? []).filter((file) => sentIds.has(file.id)),
    };
  }, [detail]);
  const replaceLast = useCallback(
    async (message: string) => {
      if (!lastTurn) return null;
      const result = await send({
        conversationId: id,
        message,
        model: model ?? undefined,
        attachments: lastTurn.attachments,
        replaces: lastTurn.ids,
      });
      return result.ok ? null : result.error.message;
    },
    [send, id, model, lastTurn],
  );
  const lastActions = useMemo((): LastTurnActions | null => {
    if (!lastTurn || live || turns.some((turn) => turn.replaces.length > 0 && isLive(turn))) return null;
    const lastUser = items.findLast((item) => item.kind === "user");
    const lastAssistant = items.at(-1);
    if (!lastUser || lastAssistant?.kind !== "assistant") return null;
    return {
      userKey: lastUser.key,
      assistantKey: lastAssistant.key,
      regenerate: () => replaceLast(lastTurn.question),
      edit: replaceLast,
    };
  }, [lastTurn, live, turns, items, replaceLast]);

  const onStop = useCallback(async () => (await stop(id))?.message ?? null, [stop, id]);
  const onDraftTaken = useCallback(() => takeDraft(id), [takeDraft, id]);

  const onModelChange = useCallback(
    async (name: string) => {
      setNotice(null);
      try {
        const { conversation } = await api.updateConversation(id, { model: name });
        setConversation(conversation);
        conversations.upsert(conversation);
      } catch (error) {
        setNotice(t("switchFailed", { error: error instanceof Error ? error.message : String(error) }));
      }
    },
    [id, setConversation, conversations.upsert, t],
  );

  return (
    <ConversationFilesContext value={filesContext}>
      <div className="relative flex min-h-0 flex-1 flex-col" {...(detail ? handlers : {})}>
        <ChatHeader title={title}>
          {detail ? <FilesMenu conversationId={id} files={detail.files} /> : null}
          {detail ? <ModelPicker value={model} onChange={(name) => void onModelChange(name)} /> : null}
        </ChatHeader>
        {state.status === "loading" ? <ThreadLoading /> : null}
        {state.status === "not-found" ? <ThreadNotFound /> : null}
        {state.status === "error" ? <ThreadError message={state.message} onRetry={() => void reload()} /> : null}
        {detail ? (
          <>
            {items.length === 0 ? <ThreadEmpty /> : <MessageList items={items} lastActions={lastActions} />}
            <RunAnnouncer turn={last} />
            <ComposerDock notice={notice}>
              <ModelNotice model={model} onReplace={(name) => void onModelChange(name)} />
              <Composer
                key={id}
                onSend={onSend}
                onStop={onStop}
                running={live !== undefined}
                stopping={live?.stopping ?? false}
                attachments={attachments}
                model={model}
                planFirst={{ on: planFirst, onChange: setPlanFirst }}
                draft={drafts[id] ?? null}
                onDraftTaken={onDraftTaken}
                autoFocus
              />
            </ComposerDock>
          </>
        ) : null}
        {dragging ? <DropOverlay /> : null}
      </div>
    </ConversationFilesContext>
  );
}
