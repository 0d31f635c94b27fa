"use client";

import { Loader2, Send, Trash2 } from "lucide-react";
import { memo, useState } from "react";
import { useTranslations } from "use-intl";

/**
 * A follow-up the server holds unsent: its run was stopped or failed before it read it. The user
 * sends it as a turn of its own, or discards it; it stays, in every tab, until one of the two.
 */
export const UnsentMessage = memo(function UnsentMessage({
  content,
  canSend,
  onSend,
  onDiscard,
}: {
  content: string;
  /** Nothing runs in the conversation. */
  canSend: boolean;
  /** Each resolves with an error message to show, or null. */
  onSend: () => Promise<string | null>;
  onDiscard: () => Promise<string | null>;
}) {
  const t = useTranslations("answer");
  const [busy, setBusy] = useState<"send" | "discard" | null>(null);
  const [error, setError] = useState<string | null>(null);
  const act = (which: "send" | "discard", action: () => Promise<string | null>) => {
    setBusy(which);
    setError(null);
    void action().then((failure) => {
      setBusy(null);
      setError(failure);
    });
  };
  const button =
    "inline-flex items-center gap-1.5 rounded-lg border border-border px-2.5 py-1 text-sm font-medium text-foreground hover:bg-muted focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-ring disabled:opacity-40";
  return (
    <div data-testid="message-unsent" className="flex flex-col items-end gap-1.5">
      <div className="max-w-[85%] rounded-3xl border border-dashed border-border px-4 py-2.5 text-[0.9375rem] leading-relaxed break-words whitespace-pre-wrap sm:max-w-[75%]">
        {content}
      </div>
      <p className="text-xs text-muted-foreground">{t("unsent")}</p>
      <div className="flex flex-wrap items-center justify-end gap-2">
        {error ? (
          <span role="alert" className="text-sm text-red-700 dark:text-red-300">
            {error}
          </span>
        ) : null}
        <button
          type="button"
          data-testid="unsent-discard"
          className={button}
          disabled={busy !== null}
          onClick={() => act("discard", onDiscard)}
        >
          {busy === "discard" ? (
            <Loader2 aria-hidden className="size-3.5 animate-spin" />
          ) : (
            <Trash2 aria-hidden className="size-3.5" />
          )}
          {t("discardUnsent")}
        </button>
        <button
          type="button"
          data-testid="unsent-send"
          className={button}
          disabled={busy !== null || !canSend}
          title={canSend ? undefined : t("unsentWait")}
          onClick={() => act("send", onSend)}
        >
          {busy === "send" ? (
            <Loader2 aria-hidden className="size-3.5 animate-spin" />
          ) : (
            <Send aria-hidden className="size-3.5" />
          )}
          {t("sendUnsent")}
        </button>
      </div>
    </div>
  );
});
