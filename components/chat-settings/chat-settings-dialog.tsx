"use client";

import { Loader2, SlidersHorizontal } from "lucide-react";
import { useRef, useState } from "react";
import { useTranslations } from "use-intl";
import { useModels } from "@/components/models/use-models";
import { BUTTON_PRIMARY, BUTTON_SECONDARY, InlineError } from "@/components/ui/field";
import { useErrorText } from "@/components/ui/use-error-text";
import { api } from "@/lib/client/api";
import type { ConversationSummary } from "@/lib/client/types";
import { fromDraft, type SettingsDraft, settingsOutsideDialog, toDraft } from "./settings-draft";
import { SettingsFields } from "./settings-fields";

/**
 * "Chat settings" in a conversation's header: a modal dialog (native: focus trap, Esc) with the
 * chat's own instructions and options, empty fields standing for the defaults, Reset and Save. They
 * apply from the next turn on (docs/architecture.md, "A chat's own settings").
 */
export function ChatSettingsButton({
  conversation,
  onSaved,
}: {
  conversation: ConversationSummary;
  onSaved: (conversation: ConversationSummary) => void;
}) {
  const t = useTranslations("chatSettings");
  const errorText = useErrorText();
  const dialog = useRef<HTMLDialogElement>(null);
  const { find, defaultModel } = useModels();
  const [draft, setDraft] = useState<SettingsDraft>(() => toDraft(conversation.settings));
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const custom = Object.keys(conversation.settings ?? {}).length > 0;

  const open = () => {
    setDraft(toDraft(conversation.settings));
    setError(null);
    dialog.current?.showModal();
  };

  const save = async () => {
    setBusy(true);
    setError(null);
    try {
      const { conversation: saved } = await api.updateConversation(conversation.id, {
        settings: { ...settingsOutsideDialog(conversation.settings), ...fromDraft(draft) },
      });
      onSaved(saved);
      dialog.current?.close();
    } catch (caught) {
      setError(errorText(caught));
    } finally {
      setBusy(false);
    }
  };

  return (
    <>
      <button
        type="button"
        onClick={open}
        data-testid="chat-settings-button"
        data-custom={custom}
        aria-label={t("open")}
        title={t("open")}
        className="relative inline-flex size-9 items-center justify-center rounded-lg text-muted-foreground transition-colors hover:bg-muted hover:text-foreground focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-ring"
      >
        <SlidersHorizontal aria-hidden className="size-4" />
        {custom ? (
          <span aria-hidden className="absolute top-1.5 right-1.5 size-1.5 rounded-full bg-sky-600 dark:bg-sky-400" />
        ) : null}
      </button>
      <dialog
        ref={dialog}
        aria-labelledby="chat-settings-title"
        aria-describedby="chat-settings-text"
        data-testid="chat-settings-dialog"
        className="m-auto max-h-[calc(100dvh-2rem)] w-[min(36rem,calc(100vw-1.5rem))] overflow-y-auto rounded-2xl border border-border bg-background p-0 text-foreground shadow-2xl backdrop:bg-black/50 backdrop:backdrop-blur-[1px]"
      >
        {/* The server checks the ranges and names the field it refuses. */}
        <form
          method="dialog"
          noValidate
          className="space-y-4 p-5"
          onSubmit={(event) => {
            event.preventDefault();
            void save();
          }}
        >
          <div>
            <h2 id="chat-settings-title" className="text-base font-semibold">
              {t("title")}
            </h2>
            <p id="chat-settings-text" className="mt-1 text-sm text-muted-foreground">
              {t("description")}
            </p>
          </div>
          <SettingsFields draft={draft} onChange={setDraft} model={find(conversation.model ?? defaultModel)} />
          {error ? <InlineError data-testid="chat-settings-error">{error}</InlineError> : null}
          <div className="flex flex-wrap items-center justify-between gap-2 pt-1">
            <button
              type="button"
              data-testid="chat-settings-reset"
              onClick={() => setDraft(toDraft({}))}
              className={BUTTON_SECONDARY}
            >
              {t("reset")}
            </button>
            <div className="flex gap-2">
              <button type="button" onClick={() => dialog.current?.close()} className={BUTTON_SECONDARY}>
                {t("cancel")}
              </button>
              <button type="submit" data-testid="chat-settings-save" disabled={busy} className={BUTTON_PRIMARY}>
                {busy ? <Loader2 aria-hidden className="size-4 animate-spin" /> : null}
                {t("save")}
              </button>
            </div>
          </div>
        </form>
      </dialog>
    </>
  );
}
