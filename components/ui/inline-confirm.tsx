import { BUTTON_SECONDARY } from "./field";

/**
 * Asks in place before something is removed for good: what happens, Cancel (focused, the safe
 * choice) and the red confirming button.
 */
export function InlineConfirm({
  label,
  text,
  cancelLabel,
  confirmLabel,
  confirmTestId,
  busy,
  onCancel,
  onConfirm,
}: {
  label: string;
  text: string;
  cancelLabel: string;
  confirmLabel: string;
  confirmTestId: string;
  busy: boolean;
  onCancel: () => void;
  onConfirm: () => void;
}) {
  return (
    <div
      role="alertdialog"
      aria-label={label}
      className="flex flex-wrap items-center gap-2 rounded-lg bg-red-50 px-3 py-2 text-sm text-red-900 dark:bg-red-500/10 dark:text-red-100"
    >
      <p className="min-w-0 flex-1">{text}</p>
      <button
        type="button"
        className={BUTTON_SECONDARY}
        onClick={onCancel}
        disabled={busy}
        // biome-ignore lint/a11y/noAutofocus: the confirmation takes the focus so keyboard users land on a safe choice
        autoFocus
      >
        {cancelLabel}
      </button>
      <button
        type="button"
        data-testid={confirmTestId}
        className="inline-flex items-center rounded-lg bg-red-600 px-3 py-1.5 text-sm font-medium text-white hover:bg-red-700 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-ring disabled:opacity-50"
        disabled={busy}
        onClick={onConfirm}
      >
        {confirmLabel}
      </button>
    </div>
  );
}
