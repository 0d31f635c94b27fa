"use client";

import { Loader2, RotateCcw } from "lucide-react";
import { useState } from "react";
import { useTranslations } from "use-intl";
import { IconButton } from "@/components/ui/icon-button";

/**
 * Asks the model again for this answer: the new answer is another version of it. The icon sits in
 * the footer; `retry` is the worded button under an answer that failed. While a run works in the
 * conversation it waits and says why.
 */
export function RegenerateButton({
  onRegenerate,
  blocked,
  retry = false,
  resume = false,
}: {
  onRegenerate: () => Promise<string | null>;
  blocked: boolean;
  retry?: boolean;
  /** The worded button resumes an interrupted research run instead ("Resume research"). */
  resume?: boolean;
}) {
  const t = useTranslations("answer");
  const tv = useTranslations("versions");
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const onClick = () => {
    if (blocked) return;
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
      {retry || resume ? (
        <button
          type="button"
          data-testid={resume ? "resume-research-button" : "retry-button"}
          disabled={busy}
          title={blocked ? tv("blocked") : undefined}
          aria-disabled={blocked}
          onClick={onClick}
          className="inline-flex items-center gap-1.5 rounded-lg border border-border px-2.5 py-1 text-sm font-medium text-foreground hover:bg-muted focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-ring disabled:opacity-40 aria-disabled:cursor-not-allowed aria-disabled:opacity-40"
        >
          {icon}
          {t(resume ? "resumeResearch" : "retry")}
        </button>
      ) : (
        <IconButton
          size="sm"
          label={t("regenerate")}
          data-testid="regenerate-button"
          className="-ml-1"
          disabled={busy}
          title={blocked ? tv("blocked") : undefined}
          aria-disabled={blocked}
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
