"use client";

import { useEffect, useRef } from "react";
import useSWR from "swr";
import { api } from "@/lib/client/api";
import { cacheKeys } from "@/lib/client/cache-keys";
import type { Health } from "@/lib/client/types";

export const HEALTH_POLL_MS = 10_000;

export type HealthState =
  | { kind: "unknown" }
  | { kind: "ok" }
  | { kind: "ollama-down"; detail: string | null }
  | { kind: "db-down" }
  | { kind: "server-down" };

/** What the banner says about a health report; no report at all means the app server is down. */
export function healthState(health: Health | null): HealthState {
  if (!health) return { kind: "server-down" };
  if (!health.db) return { kind: "db-down" };
  if (!health.ollama.reachable) return { kind: "ollama-down", detail: health.ollama.error ?? null };
  return { kind: "ok" };
}

// A failed check is a state to show, not an error: SWR stops polling a key while it holds an error,
// and the banner must notice when the server comes back.
const checkHealth = () => api.health().then(healthState, () => healthState(null));

/** Polls `/api/health` (every 10 s and when the tab regains focus); `onRecovered` fires when Ollama comes back. */
export function useOllamaHealth(onRecovered?: () => void): HealthState {
  const { data: state = { kind: "unknown" } } = useSWR(cacheKeys.health, checkHealth, {
    refreshInterval: HEALTH_POLL_MS,
    revalidateOnFocus: true,
    revalidateOnReconnect: true,
  });

  const onRecoveredRef = useRef(onRecovered);
  useEffect(() => {
    onRecoveredRef.current = onRecovered;
  });
  const previous = useRef<HealthState["kind"]>("unknown");
  useEffect(() => {
    if (state.kind === "ok" && previous.current !== "ok" && previous.current !== "unknown") onRecoveredRef.current?.();
    previous.current = state.kind;
  }, [state.kind]);

  return state;
}
