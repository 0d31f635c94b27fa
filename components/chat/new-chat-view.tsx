"use client";

import { EyeOff, Folder, X } from "lucide-react";
import Link from "next/link";
import { useRouter } from "next/navigation";
import { useCallback, useEffect, useRef, useState } from "react";
import { useTranslations } from "use-intl";
import {
  chosenPreset,
  type PresetChoice,
  PresetMenu,
  presetIdFor,
  usePresets,
} from "@/components/chat-settings/preset-menu";
import { ModelNotice } from "@/components/models/model-notice";
import { ModelPicker } from "@/components/models/model-picker";
import { useModels } from "@/components/models/use-models";
import { useNewChatModel } from "@/components/models/use-new-chat-model";
import { useProjects } from "@/components/projects/use-projects";
import { useErrorText } from "@/components/ui/use-error-text";
import { api } from "@/lib/client/api";
import { DropOverlay } from "./attachments/drop-overlay";
import { useAttachments } from "./attachments/use-attachments";
import { useFileDrop } from "./attachments/use-file-drop";
import { ChatHeader } from "./chat-header";
import { useChatRunsContext } from "./chat-runs-context";
import { Composer } from "./composer";
import { useToolGroups } from "./tool-groups-menu";

/**
 * `/`: the empty "start a chat" screen. Sending creates the conversation, then opens it; attaching
 * a file creates it at once, since files belong to a conversation (listed only once a message is sent).
 * With a project it starts in it: the project's preset and model first, its instructions and files
 * from the first turn. Chosen private in the Tools menu, it is created private.
 */
export function NewChatView({ projectId }: { projectId: string | null }) {
  const t = useTranslations("chat");
  const tp = useTranslations("projects");
  const errorText = useErrorText();
  const router = useRouter();
  const { send } = useChatRunsContext();
  const { status, models, defaultModel, find } = useModels();
  const [remembered, remember] = useNewChatModel();
  const presets = usePresets();
  const { projects, loaded: projectsLoaded } = useProjects();
  const project = projects.find((candidate) => candidate.id === projectId) ?? null;
  // Until one is chosen here, the project's preset, else the personal default ("").
  const [chosen, setPresetChoice] = useState<PresetChoice | null>(null);
  const personal = presets.find((preset) => preset.isDefault);
  const presetChoice = chosen ?? (project?.presetId && project.presetId !== personal?.id ? project.presetId : "");
  // Left out, the request gets the project's preset: in a project with one, the personal default is named.
  const presetId = presetChoice === "" && project?.presetId ? (personal?.id ?? null) : presetIdFor(presetChoice);
  // A model picked here wins over the preset's; a preset chosen after it brings its own.
  const [picked, setPicked] = useState<string | null>(null);
  const presetModel = chosenPreset(presets, presetChoice)?.model;
  const installed = (name: string | null | undefined): name is string =>
    Boolean(name) && (status !== "ready" || Boolean(find(name)));
  // A project's, remembered or preset model that is no longer installed falls back to the default.
  const model =
    picked ??
    (installed(project?.model)
      ? project.model
      : installed(presetModel)
        ? presetModel
        : installed(remembered)
          ? remembered
          : defaultModel);
  const pick = useCallback(
    (name: string) => {
      remember(name);
      setPicked(name);
    },
    [remember],
  );
  const created = useRef<Promise<string> | null>(null);
  // "Plan first" for the first turn; the conversation remembers it from there.
  const [planFirst, setPlanFirst] = useState(false);
  // "Research" for the first turn: a brief first, then a report (one or the other with Plan first).
  const [research, setResearch] = useState(false);
  // The tool groups switched off, kept by the conversation once created.
  const toolGroups = useToolGroups();
  const [disabledToolGroups, setDisabledToolGroups] = useState<string[]>([]);
  // "Private chat": created private, so its first turn already reads and writes no memory.
  const [privateChat, setPrivateChat] = useState(false);

  useEffect(() => {
    document.title = "ollama-web";
  }, []);

  const createConversation = useCallback(
    () =>
      api
        .createConversation({
          ...(model ? { model } : {}),
          presetId,
          disabledToolGroups,
          private: privateChat,
          // Sent before the projects are in, the chat still starts in the project (the server checks it).
          ...(projectId && (project || !projectsLoaded) ? { projectId } : {}),
        })
        .then(({ conversation }) => conversation),
    [model, presetId, disabledToolGroups, privateChat, project, projectId, projectsLoaded],
  );

  // Files belong to a conversation: the first one creates it. It is not listed until its first
  // message, and is deleted if the user leaves without sending one (another page, the tab closed).
  const createdId = useRef<string | null>(null);
  const conversationForFiles = useCallback(() => {
    if (!created.current) {
      const creating = createConversation().then((conversation) => {
        createdId.current = conversation.id;
        return conversation.id;
      });
      // A failed attempt is forgotten, so the next file tries again.
      creating.catch(() => {
        if (created.current === creating) created.current = null;
      });
      created.current = creating;
    }
    return created.current;
  }, [createConversation]);

  useEffect(() => {
    const abandon = () => {
      const id = createdId.current;
      if (!id) return;
      createdId.current = null;
      api.deleteConversation(id, { keepalive: true }).catch((error: unknown) => {
        console.error("[chat] could not remove the new chat left unsent", error);
      });
    };
    window.addEventListener("pagehide", abandon);
    return () => {
      window.removeEventListener("pagehide", abandon);
      abandon();
    };
  }, []);

  const attachments = useAttachments({ conversationId: conversationForFiles });
  const { dragging, handlers } = useFileDrop(attachments.add);

  const { ready, clear } = attachments;
  const onSend = useCallback(
    async (message: string) => {
      const forFiles = created.current;
      let conversationId: string;
      try {
        conversationId = forFiles ? await forFiles : (await createConversation()).id;
        // Made earlier for a file: it takes the groups and the privacy as they are now.
        if (forFiles) await api.updateConversation(conversationId, { disabledToolGroups, private: privateChat });
      } catch (error) {
        return errorText(error);
      }
      const mode = research ? "research" : planFirst ? "dag" : "auto";
      const result = await send({ conversationId, message, model: model ?? undefined, mode, attachments: ready });
      if (!result.ok) {
        // Nothing was said in it and nothing attached to it: leave no empty conversation behind.
        if (!forFiles) {
          await api.deleteConversation(conversationId).catch((error: unknown) => {
            console.error("[chat] could not remove the unused conversation", error);
          });
        }
        return errorText(result.error);
      }
      // Sent: the conversation is the user's now, not a draft to clean up.
      createdId.current = null;
      clear();
      router.push(`/c/${conversationId}`);
      return null;
    },
    [
      model,
      planFirst,
      research,
      disabledToolGroups,
      privateChat,
      send,
      router,
      ready,
      clear,
      createConversation,
      errorText,
    ],
  );

  return (
    <div className="relative flex min-h-0 flex-1 flex-col" {...handlers}>
      <ChatHeader title={t("newChat")}>
        <PresetMenu
          presets={presets}
          value={presetChoice}
          onChange={(choice) => {
            setPresetChoice(choice);
            setPicked(null);
          }}
        />
        <ModelPicker value={model} onChange={pick} />
      </ChatHeader>
      <div className="flex flex-1 flex-col items-center overflow-y-auto px-3 sm:px-4">
        <div className="flex w-full max-w-3xl flex-1 flex-col justify-center gap-6 pb-[12vh]">
          <div className="text-center">
            {project ? <ProjectChip name={project.name} /> : null}
            {privateChat ? <PrivateChip onLeave={() => setPrivateChat(false)} /> : null}
            {projectId && projectsLoaded && !project ? (
              <p role="alert" className="mb-3 text-sm text-red-700 dark:text-red-400">
                {tp("missing")}
              </p>
            ) : null}
            <h2 className="text-2xl font-semibold tracking-tight sm:text-[1.75rem]">{t("welcome")}</h2>
            <p className="mt-2 text-sm text-muted-foreground">
              {status === "ready" && models.length === 0
                ? t.rich("noModels", {
                    code: (chunks) => (
                      <code className="rounded bg-muted px-1 py-0.5 font-mono text-[0.8125rem]">{chunks}</code>
                    ),
                  })
                : model
                  ? t.rich("chattingWith", {
                      model,
                      strong: (chunks) => <span className="font-medium text-foreground">{chunks}</span>,
                    })
                  : t("yourModels")}
            </p>
          </div>
          <div className="flex flex-col gap-2">
            <Composer
              onSend={onSend}
              onStop={async () => null}
              running={false}
              attachments={attachments}
              model={model}
              planFirst={{
                on: planFirst,
                onChange: (on) => {
                  setPlanFirst(on);
                  if (on) setResearch(false);
                },
              }}
              research={{
                on: research,
                onChange: (on) => {
                  setResearch(on);
                  if (on) setPlanFirst(false);
                },
              }}
              toolGroups={{
                groups: toolGroups,
                disabled: disabledToolGroups,
                onChange: setDisabledToolGroups,
                privateChat: { on: privateChat, onChange: setPrivateChat },
              }}
              autoFocus
            />
            <ModelNotice model={model} onReplace={pick} />
          </div>
        </div>
      </div>
      {dragging ? <DropOverlay /> : null}
    </div>
  );
}

/** The new chat is private (chosen in the Tools menu), and the way back to memory. */
function PrivateChip({ onLeave }: { onLeave: () => void }) {
  const t = useTranslations("chat");
  return (
    <p
      data-testid="new-chat-private"
      className="mx-1 mb-3 inline-flex items-center gap-1.5 rounded-full border border-border bg-muted/60 py-0.5 pr-1 pl-2.5 text-sm"
    >
      <EyeOff aria-hidden className="size-3.5 text-muted-foreground" />
      {t("privateNewChat")}
      <button
        type="button"
        onClick={onLeave}
        aria-label={t("leavePrivate")}
        title={t("leavePrivate")}
        data-testid="leave-private"
        className="inline-flex size-6 items-center justify-center rounded-full text-muted-foreground hover:bg-background hover:text-foreground focus-visible:outline-2 focus-visible:outline-ring"
      >
        <X aria-hidden className="size-3.5" />
      </button>
    </p>
  );
}

/** The project the new chat starts in, and the way out of it. */
function ProjectChip({ name }: { name: string }) {
  const t = useTranslations("projects");
  return (
    <p
      data-testid="new-chat-project"
      className="mb-3 inline-flex items-center gap-1.5 rounded-full border border-border bg-muted/60 py-0.5 pr-1 pl-2.5 text-sm"
    >
      <Folder aria-hidden className="size-3.5 text-muted-foreground" />
      {t("inProject", { name })}
      <Link
        href="/"
        aria-label={t("leaveProject")}
        title={t("leaveProject")}
        className="inline-flex size-6 items-center justify-center rounded-full text-muted-foreground hover:bg-background hover:text-foreground focus-visible:outline-2 focus-visible:outline-ring"
      >
        <X aria-hidden className="size-3.5" />
      </Link>
    </p>
  );
}
