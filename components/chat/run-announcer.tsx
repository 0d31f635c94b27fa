"use client";

import { useTranslations } from "use-intl";
import { useErrorText } from "@/components/ui/use-error-text";
import type { LiveTurn } from "./live-turn";

/**
 * Tells screen-reader users when the live answer ends; the streaming text itself is not announced
 * token by token (that would be unbearable), they read it once it is done.
 */
export function RunAnnouncer({ turn }: { turn: LiveTurn | undefined }) {
  const t = useTranslations("chat");
  const errorText = useErrorText();
  const status = turn?.run.status;
  const text =
    turn && status && status !== "streaming"
      ? t(`announce.${status}`) + (turn.run.failure ? ` ${errorText(turn.run.failure)}` : "")
      : "";
  return (
    <p aria-live="polite" className="sr-only">
      {text}
    </p>
  );
}
