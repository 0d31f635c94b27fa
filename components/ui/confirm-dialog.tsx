"use client";

import { Loader2 } from "lucide-react";
import { type ReactNode, useEffect, useId, useRef, useState } from "react";
import { BUTTON_SECONDARY, InlineError } from "./field";

/**
 * Asks in a native modal dialog (focus trap and Escape for free) before something is removed for
 * good: what happens, Cancel (focused, the safe choice) and the red confirming button. A failure is
 * shown in the dialog, which stays open; success closes it. (`InlineConfirm` asks in place, in a row.)
 */
export function ConfirmDialog({
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
  open: boolean;
  title: string;
  text: ReactNode;
  cancelLabel: string;
  confirmLabel: string;
  testId: string;
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
    if (open && !dialog.current?.open) dialog.current?.showModal();
  }, [open]);

  const confirm = async () => {
    setBusy(true);
    const failure = await onConfirm();
    setBusy(false);
    if (failure) setError(failure);
    else dialog.current?.close();
  };

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
          {error ? <InlineError className="mt-3">{error}</InlineError> : null}
          <div className="mt-5 flex justify-end gap-2">
            {/* biome-ignore lint/a11y/noAutofocus: the safe choice gets focus when the dialog opens */}
            <button type="button" autoFocus className={BUTTON_SECONDARY} onClick={() => dialog.current?.close()}>
              {cancelLabel}
            </button>
            <button
              type="button"
              data-testid={confirmTestId}
              disabled={busy}
              onClick={() => void confirm()}
              className="inline-flex items-center gap-2 rounded-lg bg-red-600 px-3.5 py-2 text-sm font-medium text-white hover:bg-red-700 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-red-600 disabled:opacity-60"
            >
              {busy ? <Loader2 aria-hidden className="size-4 animate-spin" /> : null}
              {confirmLabel}
            </button>
          </div>
        </div>
      ) : null}
    </dialog>
  );
}
