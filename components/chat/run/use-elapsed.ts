"use client";

import { useCallback, useEffect, useState } from "react";
import { useTranslations } from "use-intl";

const TICK_MS = 200;

/** Milliseconds since `startedAt`, ticking while `running`; null without a start time. */
export function useElapsed(startedAt: number | null, running: boolean): number | null {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    if (!running || startedAt === null) return;
    setNow(Date.now());
    const timer = setInterval(() => setNow(Date.now()), TICK_MS);
    return () => clearInterval(timer);
  }, [running, startedAt]);
  return startedAt === null ? null : Math.max(0, now - startedAt);
}

export type ElapsedMessage =
  | { key: "milliseconds" | "seconds"; values: { value: number } }
  | { key: "minutes"; values: { minutes: number; seconds: number } };

/** Which message shows a duration, and its numbers: whole ms, one decimal under 10 s, then minutes. */
export function elapsedMessage(ms: number): ElapsedMessage {
  if (ms < 1000) return { key: "milliseconds", values: { value: Math.round(ms) } };
  const seconds = ms / 1000;
  if (seconds < 60) return { key: "seconds", values: { value: Number(seconds.toFixed(seconds < 10 ? 1 : 0)) } };
  const minutes = Math.floor(seconds / 60);
  return { key: "minutes", values: { minutes, seconds: Math.round(seconds - minutes * 60) } };
}

/** "850 ms", "4.2 s", "2 min 5 s" in the page's language. */
export function useFormatElapsed(): (ms: number) => string {
  const t = useTranslations("tools");
  return useCallback(
    (ms: number) => {
      const { key, values } = elapsedMessage(ms);
      return t(key, values);
    },
    [t],
  );
}
