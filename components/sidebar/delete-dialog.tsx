"use client";

import { Loader2 } from "lucide-react";
import { useEffect, useRef, useState } from "react";
import { useTranslations } from "use-intl";
import type { ConversationSummary } from "@/lib/client/types";

/** Asks before a conversation is deleted for good (a native modal dialog: focus trap and Escape for free). */
export function DeleteDialog({
  conversation,
  onClose,
  onConfirm,
}: {
  conversation: ConversationSummary | null;
  onClose: () => void;
  /** Resolves with an error message to show, or null when done. */
  onConfirm: (conversation: ConversationSummary) => Promise<string | null>;
}) {
  const t = useTranslations("sidebar");
  const dialog = useRef<HTMLDialogElement>(null);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);

  useEffect(() => {
    if (conversation && !dialog.current?.open) dialog.current?.showModal();
  }, [conversation]);

  const confirm = async () => {
    if (!conversation) return;
    setBusy(true);
    const failure = await onConfirm(conversation);
    setBusy(false);
    if (failure) setError(failure);
    else dialog.current?.close();
  };

  return (
    <dialog
      ref={dialog}
      onClose={onClose}
      aria-labelledby="delete-dialog-title"
      aria-describedby="delete-dialog-text"
      data-testid="delete-dialog"
      className="m-auto w-[min(26rem,calc(100vw-2rem))] rounded-2xl border border-border bg-background p-0 text-foreground shadow-2xl backdrop:bg-black/50 backdrop:backdrop-blur-[1px]"
    >
      {conversation ? (
        <div className="p-5">
          <h2 id="delete-dialog-title" className="text-base font-semibold">
            {t("deleteTitle")}
          </h2>
          <p id="delete-dialog-text" className="mt-2 text-sm text-muted-foreground">
            {t.rich("deleteText", {
              title: conversation.title,
              name: (chunks) => <span className="font-medium break-words text-foreground">{chunks}</span>,
            })}
          </p>
          {error ? (
            <p
              role="alert"
              className="mt-3 rounded-lg bg-red-50 px-3 py-2 text-sm text-red-700 dark:bg-red-950/50 dark:text-red-300"
            >
              {error}
            </p>
          ) : null}
          <div className="mt-5 flex justify-end gap-2">
            <button
              type="button"
              // biome-ignore lint/a11y/noAutofocus: the safe choice gets focus when the dialog opens
              autoFocus
              onClick={() => dialog.current?.close()}
              className="rounded-lg border border-border px-3.5 py-2 text-sm font-medium hover:bg-muted focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-ring"
            >
              {t("cancel")}
            </button>
            <button
              type="button"
              data-testid="confirm-delete"
              disabled={busy}
              onClick={() => void confirm()}
              className="inline-flex items-center gap-2 rounded-lg bg-red-600 px-3.5 py-2 text-sm font-medium text-white hover:bg-red-700 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-red-600 disabled:opacity-60"
            >
              {busy ? <Loader2 aria-hidden className="size-4 animate-spin" /> : null}
              {t("deleteConfirm")}
            </button>
          </div>
        </div>
      ) : null}
    </dialog>
  );
}
