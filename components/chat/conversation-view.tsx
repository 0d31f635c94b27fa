"use client";

import { useSearchParams } from "next/navigation";
import { useCallback, useEffect, useMemo, useState } from "react";
import { useTranslations } from "use-intl";
import { ChatSettingsButton } from "@/components/chat-settings/chat-settings-dialog";
import { ModelNotice } from "@/components/models/model-notice";
import { ModelPicker } from "@/components/models/model-picker";
import { useModels } from "@/components/models/use-models";
import { useConversations } from "@/components/sidebar/conversations-context";
import { useErrorText } from "@/components/ui/use-error-text";
import { ApiError, api } from "@/lib/client/api";
import type { ResearchBrief } from "@/lib/protocol/research";
import { ArchivedNotice } from "./archived-notice";
import { DropOverlay } from "./attachments/drop-overlay";
import { mentionFiles } from "./attachments/file-facts";
import { useAttachments } from "./attachments/use-attachments";
import { useFileDrop } from "./attachments/use-file-drop";
import { ChatHeader } from "./chat-header";
import { buildChatItems, storedItemKey } from "./chat-items";
import { useChatRunsContext } from "./chat-runs-context";
import { Composer } from "./composer";
import { ComposerDock } from "./composer-dock";
import { ExportMenu } from "./export-menu";
import { ConversationFilesContext } from "./files/conversation-files-context";
import { FilesMenu } from "./files/files-menu";
import { isLive, type LiveTurn } from "./live-turn";
import { MessageList, type ThreadActions, type UnsentActions } from "./message-list";
import { briefQuestion } from "./research/outline-draft";
import { RunAnnouncer } from "./run-announcer";
import { findSupportInput } from "./sources/find-support";
import { ThreadEmpty, ThreadError, ThreadLoading, ThreadNotFound } from "./thread-states";
import { useToolGroups } from "./tool-groups-menu";
import { useConversationDetail } from "./use-conversation-detail";

const NO_TURNS: LiveTurn[] = [];

/** `/c/<id>`: one conversation — its thread, the live run, the composer, its files and model. */
export function ConversationView({ id }: { id: string }) {
  const { state, reload, setConversation, setDetail } = useConversationDetail(id);
  const { turns: allTurns, send, interrupt, attach, stop, forgetSettled } = useChatRunsContext();
  const t = useTranslations("models");
  const tOutline = useTranslations("research.outline");
  const errorText = useErrorText();
  const conversations = useConversations();
  const { defaultModel, reload: reloadModels } = useModels();
  const [notice, setNotice] = useState<string | null>(null);
  const turns = allTurns[id] ?? NO_TURNS;
  const detail = state.status === "ready" ? state.detail : null;
  const files = detail?.files;

  const items = useMemo(
    () =>
      detail
        ? buildChatItems({ messages: detail.messages, turns, files: detail.files, interrupts: detail.interrupts })
        : [],
    [detail, turns],
  );
  const live = turns.findLast(isLive);

  // `?m=<message id>`: opened from a search result, at that message.
  const foundId = useSearchParams().get("m");
  const foundMessage = detail?.messages.find((message) => message.id === foundId);
  const found = foundMessage ? storedItemKey(foundMessage) : null;
  const last = turns.at(-1);

  // A hit on a version not shown (another branch) switches to the branch through it, once. Refused
  // (a run works here, the message is gone): the conversation stays as it is.
  const [soughtBranch, setSoughtBranch] = useState<string | null>(null);
  const missing = detail !== null && foundId !== null && !foundMessage && soughtBranch !== foundId;
  useEffect(() => {
    if (!missing || !foundId) return;
    setSoughtBranch(foundId);
    api.selectBranch(id, foundId).then(setDetail, (error: unknown) => {
      console.warn("[search] could not show the version found", error);
    });
  }, [missing, foundId, id, setDetail]);

  // A run that found its model gone: read the list again, so the composer offers the replacement.
  const modelGone = last?.run.failure?.code === "bad_request:unknown_model";
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
  // "Research" as the user last set it here; on by itself while the last answer is a research run's
  // brief or questions, so a reply (answers, or what to change) makes the next brief.
  const [researchChoice, setResearch] = useState<boolean | null>(null);
  const asked = detail?.messages.findLast((message) => message.role === "assistant")?.run?.researchBrief?.kind;
  const research = researchChoice ?? asked !== undefined;
  const mode = research ? "research" : planFirst ? "dag" : "auto";

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
        return errorText(result.error);
      }
      clear();
      return null;
    },
    [send, interrupt, live, id, model, mode, ready, clear, reloadModels, errorText],
  );

  // Edit and regenerate make a new version of a stored message; the thread hides the old one and
  // what follows it until the new turn is stored.
  const storedMessages = detail?.messages;
  const newVersion = useCallback(
    async (messageId: string, input: { message: string; editOf?: string; regenerate?: string; resume?: string }) => {
      const messages = storedMessages ?? [];
      const index = messages.findIndex((message) => message.id === messageId);
      // An edited question is sent with the files of the one it replaces (an image must reach the vision model again).
      const sentIds = new Set(messages[index]?.attachmentIds ?? []);
      const result = await send({
        conversationId: id,
        model: model ?? undefined,
        attachments: (files ?? []).filter((file) => sentIds.has(file.id)),
        replaces: messages.slice(index).map((message) => message.id),
        ...input,
      });
      return result.ok ? null : errorText(result.error);
    },
    [send, id, model, files, storedMessages, errorText],
  );
  // Until the server's copy is read back, the live turn's question is the brief sent, as Markdown.
  const startResearch = useCallback(
    async (parentId: string, brief: ResearchBrief) => {
      const message = briefQuestion(brief, {
        goal: (goal) => tOutline("question.goal", { goal }),
        scope: (scope) => tOutline("question.scope", { scope: scope || tOutline("scopeOpen") }),
      });
      const result = await send({
        conversationId: id,
        model: model ?? undefined,
        message,
        research: { parentId, brief },
      });
      return result.ok ? null : errorText(result.error);
    },
    [send, id, model, errorText, tOutline],
  );
  // "Find support": a short ReAct turn after the answer; what follows it on the branch shown is hidden meanwhile.
  const findSupport = useCallback(
    async (answerId: string, question: string) => {
      const messages = storedMessages ?? [];
      const index = messages.findIndex((message) => message.id === answerId);
      const after = index === -1 ? [] : messages.slice(index + 1).map((message) => message.id);
      const input = findSupportInput({ conversationId: id, model: model ?? undefined, answerId, question, after });
      const result = await send(input);
      return result.ok ? null : errorText(result.error);
    },
    [send, id, model, storedMessages, errorText],
  );
  const [focused, setFocused] = useState<ThreadActions["focused"]>(null);
  const blocked = live !== undefined;
  const actions = useMemo(
    (): ThreadActions => ({
      blocked,
      focused,
      startResearch,
      findSupport,
      edit: (questionId, message) => newVersion(questionId, { message, editOf: questionId }),
      regenerate: (answerId) => {
        const messages = storedMessages ?? [];
        const answer = messages.findIndex((message) => message.id === answerId);
        const question = messages.findLast(
          (message, index) => index < answer && message.role === "user" && !message.runId,
        );
        return newVersion(answerId, { message: question?.content ?? "", regenerate: answerId });
      },
      // A resumed research run is a new version of the interrupted answer, to the same stored question.
      resumeResearch: (answerId) => newVersion(answerId, { message: "", resume: answerId }),
      selectVersion: async (messageId, step) => {
        try {
          setDetail(await api.selectBranch(id, messageId));
          forgetSettled(id);
          setFocused({ id: messageId, step });
          return null;
        } catch (error) {
          return errorText(error);
        }
      },
    }),
    [blocked, focused, startResearch, findSupport, newVersion, storedMessages, setDetail, forgetSettled, id, errorText],
  );

  const onStop = useCallback(async () => {
    const failure = await stop(id);
    return failure ? errorText(failure) : null;
  }, [stop, id, errorText]);

  // Follow-ups the server holds unsent: sent as a turn of their own, or discarded.
  const unsentActions = useMemo(
    (): UnsentActions => ({
      canSend: live === undefined,
      send: async (interruptId, text) => {
        const result = await send({
          conversationId: id,
          message: text,
          model: model ?? undefined,
          interruptIds: [interruptId],
        });
        return result.ok ? null : errorText(result.error);
      },
      discard: async (interruptId) => {
        try {
          await api.discardInterrupt(id, interruptId);
        } catch (error) {
          // Gone already (another tab sent or discarded it): the reload shows how things stand.
          if (!(error instanceof ApiError && error.status === 404)) return errorText(error);
        }
        await reload();
        return null;
      },
    }),
    [live, send, id, model, reload, errorText],
  );

  const onModelChange = useCallback(
    async (name: string) => {
      setNotice(null);
      try {
        const { conversation } = await api.updateConversation(id, { model: name });
        setConversation(conversation);
        conversations.upsert(conversation);
      } catch (error) {
        setNotice(t("switchFailed", { error: errorText(error) }));
      }
    },
    [id, setConversation, conversations.upsert, t, errorText],
  );

  // The conversation's tool groups: shown switched at once, stored by the server, read back on failure.
  const toolGroups = useToolGroups();
  const shownConversation = detail?.conversation;
  const onToolGroupsChange = useCallback(
    async (disabledToolGroups: string[]) => {
      setNotice(null);
      if (shownConversation) setConversation({ ...shownConversation, disabledToolGroups });
      try {
        setConversation((await api.updateConversation(id, { disabledToolGroups })).conversation);
      } catch (error) {
        setNotice(t("toolGroupsFailed", { error: errorText(error) }));
        void reload();
      }
    },
    [id, shownConversation, setConversation, reload, t, errorText],
  );
  // "Search all my files": the chat's `searchAllFiles`, the rest of its settings kept.
  const onSearchAllChange = useCallback(
    async (on: boolean) => {
      if (!shownConversation) return;
      setNotice(null);
      const settings = { ...shownConversation.settings, searchAllFiles: on };
      setConversation({ ...shownConversation, settings });
      try {
        setConversation((await api.updateConversation(id, { settings })).conversation);
      } catch (error) {
        setNotice(t("toolGroupsFailed", { error: errorText(error) }));
        void reload();
      }
    },
    [id, shownConversation, setConversation, reload, t, errorText],
  );

  return (
    <ConversationFilesContext value={filesContext}>
      <div className="relative flex min-h-0 flex-1 flex-col" {...(detail ? handlers : {})}>
        <ChatHeader title={title}>
          {detail ? <FilesMenu conversationId={id} files={detail.files} /> : null}
          {detail && items.length > 0 ? <ExportMenu conversationId={id} running={live !== undefined} /> : null}
          {detail ? <ModelPicker value={model} onChange={(name) => void onModelChange(name)} /> : null}
          {detail ? <ChatSettingsButton conversation={detail.conversation} onSaved={setConversation} /> : null}
        </ChatHeader>
        {state.status === "loading" ? <ThreadLoading /> : null}
        {state.status === "not-found" ? <ThreadNotFound /> : null}
        {state.status === "error" ? (
          <ThreadError message={errorText(state.error)} onRetry={() => void reload()} />
        ) : null}
        {detail ? (
          <>
            {items.length === 0 ? (
              <ThreadEmpty />
            ) : (
              <MessageList items={items} actions={actions} found={found} unsentActions={unsentActions} />
            )}
            <RunAnnouncer turn={last} />
            <ComposerDock notice={notice}>
              {detail.conversation.archived ? <ArchivedNotice conversationId={id} /> : null}
              <ModelNotice model={model} onReplace={(name) => void onModelChange(name)} />
              <Composer
                key={id}
                onSend={onSend}
                onStop={onStop}
                running={live !== undefined}
                stopping={live?.stopping ?? false}
                attachments={attachments}
                model={model}
                planFirst={{
                  on: planFirst && !research,
                  onChange: (on) => {
                    setPlanFirst(on);
                    if (on) setResearch(false);
                  },
                }}
                research={{ on: research, onChange: setResearch }}
                toolGroups={{
                  groups: toolGroups,
                  disabled: detail.conversation.disabledToolGroups ?? [],
                  onChange: (disabled) => void onToolGroupsChange(disabled),
                  searchAll: {
                    on: detail.conversation.settings?.searchAllFiles === true,
                    onChange: (on) => void onSearchAllChange(on),
                  },
                }}
                // Opened at a message from search: that message takes the focus.
                autoFocus={!found}
              />
            </ComposerDock>
          </>
        ) : null}
        {dragging ? <DropOverlay /> : null}
      </div>
    </ConversationFilesContext>
  );
}
