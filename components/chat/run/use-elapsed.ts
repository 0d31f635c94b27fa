"use client";

import { useEffect, useState } from "react";

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
