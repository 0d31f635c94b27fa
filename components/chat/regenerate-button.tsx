"use client";

import { Loader2, RotateCcw } from "lucide-react";
import { useState } from "react";
import { useTranslations } from "use-intl";
import { IconButton } from "@/components/ui/icon-button";

/** Asks the model again for the last answer; the new run replaces the last turn. */
export function RegenerateButton({ onRegenerate }: { onRegenerate: () => Promise<string | null> }) {
  const t = useTranslations("answer");
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  return (
    <>
      <IconButton
        size="sm"
        label={t("regenerate")}
        data-testid="regenerate-button"
        className="-ml-1"
        disabled={busy}
        onClick={() => {
          setBusy(true);
          setError(null);
          void onRegenerate().then((failure) => {
            setBusy(false);
            setError(failure);
          });
        }}
      >
        {busy ? (
          <Loader2 aria-hidden className="size-3.5 animate-spin" />
        ) : (
          <RotateCcw aria-hidden className="size-3.5" />
        )}
      </IconButton>
      {error ? (
        <span role="alert" className="text-red-700 dark:text-red-300">
          {error}
        </span>
      ) : null}
    </>
  );
}
