"use client";

import { Loader2, RotateCcw } from "lucide-react";
import { useState } from "react";
import { useTranslations } from "use-intl";
import { IconButton } from "@/components/ui/icon-button";

/**
 * Asks the model again for the last answer; the new run replaces the last turn. The icon sits in the
 * footer; `retry` is the worded button under an answer that failed.
 */
export function RegenerateButton({
  onRegenerate,
  retry = false,
}: {
  onRegenerate: () => Promise<string | null>;
  retry?: boolean;
}) {
  const t = useTranslations("answer");
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const onClick = () => {
    setBusy(true);
    setError(null);
    void onRegenerate().then((failure) => {
      setBusy(false);
      setError(failure);
    });
  };
  const Icon = busy ? Loader2 : RotateCcw;
  const icon = <Icon aria-hidden className={busy ? "size-3.5 animate-spin" : "size-3.5"} />;
  return (
    <>
      {retry ? (
        <button
          type="button"
          data-testid="retry-button"
          disabled={busy}
          onClick={onClick}
          className="inline-flex items-center gap-1.5 rounded-lg border border-border px-2.5 py-1 text-sm font-medium text-foreground hover:bg-muted focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-ring disabled:opacity-40"
        >
          {icon}
          {t("retry")}
        </button>
      ) : (
        <IconButton
          size="sm"
          label={t("regenerate")}
          data-testid="regenerate-button"
          className="-ml-1"
          disabled={busy}
          onClick={onClick}
        >
          {icon}
        </IconButton>
      )}
      {error ? (
        <span role="alert" className="text-sm text-red-700 dark:text-red-300">
          {error}
        </span>
      ) : null}
    </>
  );
}
