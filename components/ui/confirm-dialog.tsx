"use client";

import { Loader2 } from "lucide-react";
import { type ReactNode, useEffect, useId, useRef, useState } from "react";
import { cx } from "@/lib/client/cx";
import { BUTTON_SECONDARY, InlineError } from "./field";

/**
 * Asks before something is removed for good: what happens, Cancel (focused, the safe choice) and
 * the red confirming button. While the confirmation is carried out neither can be pressed again; a
 * failure is shown in the dialog, which stays open; success closes it. In a native modal dialog
 * (focus trap and Escape for free), or `inline`: in place, in the row of what it removes.
 */
export function ConfirmDialog({
  inline = false,
  open,
  title,
  text,
  cancelLabel,
  confirmLabel,
  testId,
  confirmTestId,
  extra,
  onClose,
  onConfirm,
}: {
  inline?: boolean;
  open: boolean;
  /** The modal's heading; the name of an inline one. */
  title: string;
  text: ReactNode;
  cancelLabel: string;
  confirmLabel: string;
  testId?: string;
  confirmTestId: string;
  /** Controls the confirmation depends on (which server to delete from), under the text. */
  extra?: ReactNode;
  onClose: () => void;
  /** Resolves with an error message to show, or null when done. */
  onConfirm: () => Promise<string | null>;
}) {
  const dialog = useRef<HTMLDialogElement>(null);
  const titleId = useId();
  const textId = useId();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);

  useEffect(() => {
    setError(null);
    if (open && !inline && !dialog.current?.open) dialog.current?.showModal();
  }, [open, inline]);

  const close = () => (inline ? onClose() : dialog.current?.close());
  const confirm = async () => {
    setBusy(true);
    const failure = await onConfirm();
    setBusy(false);
    if (failure) setError(failure);
    else close();
  };

  const choices = (
    <>
      {/* biome-ignore lint/a11y/noAutofocus: the safe choice gets the focus when the confirmation opens */}
      <button type="button" autoFocus className={BUTTON_SECONDARY} disabled={busy} onClick={close}>
        {cancelLabel}
      </button>
      <button
        type="button"
        data-testid={confirmTestId}
        disabled={busy}
        onClick={() => void confirm()}
        className={cx(
          "inline-flex items-center gap-2 rounded-lg bg-red-600 text-sm font-medium text-white hover:bg-red-700 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-red-600 disabled:opacity-60",
          inline ? "px-3 py-1.5" : "px-3.5 py-2",
        )}
      >
        {busy ? <Loader2 aria-hidden className="size-4 animate-spin" /> : null}
        {confirmLabel}
      </button>
    </>
  );
  const failure = error ? <InlineError className={inline ? "basis-full" : "mt-3"}>{error}</InlineError> : null;

  if (inline) {
    return open ? (
      <div
        role="alertdialog"
        aria-label={title}
        aria-describedby={textId}
        data-testid={testId}
        className="flex flex-wrap items-center gap-2 rounded-lg bg-red-50 px-3 py-2 text-sm text-red-900 dark:bg-red-500/10 dark:text-red-100"
      >
        <p id={textId} className="min-w-0 flex-1">
          {text}
        </p>
        {choices}
        {failure}
      </div>
    ) : null;
  }
  return (
    <dialog
      ref={dialog}
      onClose={onClose}
      aria-labelledby={titleId}
      aria-describedby={textId}
      data-testid={testId}
      className="m-auto w-[min(26rem,calc(100vw-2rem))] rounded-2xl border border-border bg-background p-0 text-foreground shadow-2xl backdrop:bg-black/50 backdrop:backdrop-blur-[1px]"
    >
      {open ? (
        <div className="p-5">
          <h2 id={titleId} className="text-base font-semibold">
            {title}
          </h2>
          <p id={textId} className="mt-2 break-words text-sm text-muted-foreground">
            {text}
          </p>
          {extra ? <div className="mt-3">{extra}</div> : null}
          {failure}
          <div className="mt-5 flex justify-end gap-2">{choices}</div>
        </div>
      ) : null}
    </dialog>
  );
}
