"use client";

import { Loader2 } from "lucide-react";
import { type FormEvent, type KeyboardEvent, useEffect, useId, useRef, useState } from "react";
import { useTranslations } from "use-intl";
import { BUTTON_PRIMARY, BUTTON_SECONDARY, InlineError } from "@/components/ui/field";

/**
 * A question, editable in place; sending it makes a new version of it (the current one is kept).
 * Enter sends, Shift+Enter breaks the line, Escape cancels; Enter that confirms an input method's
 * composition (Japanese, Chinese…) does neither.
 */
export function EditMessageForm({
  initial,
  onSubmit,
  onCancel,
}: {
  initial: string;
  onSubmit: (text: string) => Promise<string | null>;
  onCancel: () => void;
}) {
  const t = useTranslations("answer");
  const [text, setText] = useState(initial);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const input = useRef<HTMLTextAreaElement>(null);
  const hintId = useId();
  const empty = text.trim().length === 0;

  useEffect(() => {
    const element = input.current;
    element?.focus();
    element?.setSelectionRange(element.value.length, element.value.length);
  }, []);

  const submit = async (event: FormEvent | KeyboardEvent) => {
    event.preventDefault();
    if (empty || busy) return;
    setBusy(true);
    setError(null);
    const failure = await onSubmit(text);
    setBusy(false);
    if (failure) setError(failure);
  };

  return (
    <form
      onSubmit={(event) => void submit(event)}
      data-testid="edit-message-form"
      className="ml-auto flex w-full max-w-[85%] flex-col gap-2 sm:max-w-[75%]"
    >
      <textarea
        ref={input}
        data-testid="edit-message-input"
        aria-label={t("editLabel")}
        rows={3}
        value={text}
        onChange={(event) => setText(event.target.value)}
        onKeyDown={(event) => {
          if (event.nativeEvent.isComposing || event.keyCode === 229) return;
          if (event.key === "Escape") onCancel();
          else if (event.key === "Enter" && !event.shiftKey) void submit(event);
        }}
        className="w-full resize-y rounded-2xl border border-border bg-card px-4 py-2.5 text-[0.9375rem] leading-relaxed outline-none focus-visible:border-ring"
      />
      {error ? <InlineError>{error}</InlineError> : null}
      <div className="flex justify-end gap-2">
        <button type="button" className={BUTTON_SECONDARY} onClick={onCancel} data-testid="edit-message-cancel">
          {t("cancel")}
        </button>
        <button
          type="submit"
          className={BUTTON_PRIMARY}
          data-testid="edit-message-save"
          disabled={busy || empty}
          title={empty ? t("typeFirst") : undefined}
          aria-describedby={hintId}
        >
          {busy ? <Loader2 aria-hidden className="size-4 animate-spin" /> : null}
          {t("send")}
        </button>
      </div>
      <p id={hintId} className="sr-only">
        {t("editHint")}
      </p>
    </form>
  );
}
