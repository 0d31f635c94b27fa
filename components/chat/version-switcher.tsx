"use client";

import { ChevronLeft, ChevronRight } from "lucide-react";
import { useEffect, useId, useRef, useState } from "react";
import { useTranslations } from "use-intl";
import { IconButton } from "@/components/ui/icon-button";
import type { StoredVersion } from "./chat-items";
import type { ThreadActions } from "./message-list";

/**
 * "‹ 2/3 ›" under a question or an answer with versions: switches the branch shown to another
 * version (and the newest branch below it). While a run works it says why it waits.
 */
export function VersionSwitcher({ stored, actions }: { stored: StoredVersion; actions: ThreadActions }) {
  const t = useTranslations("versions");
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const previous = useRef<HTMLButtonElement>(null);
  const next = useRef<HTMLButtonElement>(null);
  const reasonId = useId();
  const index = stored.versions.indexOf(stored.id);
  const count = stored.versions.length;
  const { focused, blocked } = actions;

  // The version just switched to keeps the keyboard where it was.
  useEffect(() => {
    if (focused?.id === stored.id) (focused.step < 0 ? previous : next).current?.focus();
  }, [focused, stored.id]);

  if (count < 2) return null;
  const go = (step: -1 | 1) => {
    const target = stored.versions[index + step];
    if (!target || busy || blocked) return;
    setBusy(true);
    setError(null);
    void actions.selectVersion(target, step).then((failure) => {
      setBusy(false);
      setError(failure);
    });
  };
  const describedBy = blocked ? reasonId : undefined;
  return (
    <fieldset
      aria-label={t("label", { index: index + 1, count })}
      data-testid="version-switcher"
      className="m-0 flex min-w-0 items-center border-0 p-0 text-xs text-muted-foreground tabular-nums"
    >
      <IconButton
        ref={previous}
        size="sm"
        label={t("previous")}
        title={blocked ? t("blocked") : undefined}
        aria-disabled={index === 0 || blocked || busy}
        aria-describedby={describedBy}
        data-testid="version-previous"
        onClick={() => go(-1)}
      >
        <ChevronLeft aria-hidden className="size-3.5" />
      </IconButton>
      <span aria-hidden data-testid="version-label">
        {index + 1}/{count}
      </span>
      <IconButton
        ref={next}
        size="sm"
        label={t("next")}
        title={blocked ? t("blocked") : undefined}
        aria-disabled={index === count - 1 || blocked || busy}
        aria-describedby={describedBy}
        data-testid="version-next"
        onClick={() => go(1)}
      >
        <ChevronRight aria-hidden className="size-3.5" />
      </IconButton>
      {blocked ? (
        <span id={reasonId} className="sr-only">
          {t("blocked")}
        </span>
      ) : null}
      {error ? (
        <span role="alert" className="ml-2 text-red-700 dark:text-red-300">
          {error}
        </span>
      ) : null}
    </fieldset>
  );
}
