"use client";

import { useEffect, useRef, useState } from "react";
import { api } from "@/lib/client/api";

export const HEALTH_POLL_MS = 10_000;

export type HealthState =
  | { kind: "unknown" }
  | { kind: "ok" }
  | { kind: "ollama-down"; detail: string | null }
  | { kind: "db-down" }
  | { kind: "server-down" };

/** Polls `/api/health` (every 10 s and when the tab regains focus); `onRecovered` fires when Ollama comes back. */
export function useOllamaHealth(onRecovered?: () => void): HealthState {
  const [state, setState] = useState<HealthState>({ kind: "unknown" });
  const onRecoveredRef = useRef(onRecovered);
  useEffect(() => {
    onRecoveredRef.current = onRecovered;
  });

  useEffect(() => {
    let previous: HealthState["kind"] = "unknown";
    let controller: AbortController | null = null;
    const check = async () => {
      controller?.abort();
      controller = new AbortController();
      const signal = controller.signal;
      let next: HealthState;
      try {
        const health = await api.health(signal);
        if (!health.db) next = { kind: "db-down" };
        else if (!health.ollama.reachable) next = { kind: "ollama-down", detail: health.ollama.error ?? null };
        else next = { kind: "ok" };
      } catch {
        if (signal.aborted) return;
        next = { kind: "server-down" };
      }
      if (next.kind === "ok" && previous !== "ok" && previous !== "unknown") onRecoveredRef.current?.();
      previous = next.kind;
      setState(next);
    };
    void check();
    const timer = setInterval(check, HEALTH_POLL_MS);
    const onFocus = () => void check();
    window.addEventListener("focus", onFocus);
    return () => {
      clearInterval(timer);
      window.removeEventListener("focus", onFocus);
      controller?.abort();
    };
  }, []);

  return state;
}
