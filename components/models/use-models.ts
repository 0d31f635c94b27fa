"use client";

import { useCallback, useEffect } from "react";
import useSWR from "swr";
import { useErrorText } from "@/components/ui/use-error-text";
import { api } from "@/lib/client/api";
import { cacheKeys } from "@/lib/client/cache-keys";
import type { ModelInfo, ModelList } from "@/lib/client/types";

export interface Models {
  models: ModelInfo[];
  defaultModel: string | null;
  /** The model that answers images for a model without vision, when one is set and installed. */
  visionModel: string | null;
  /** The OpenAI-compatible servers' states. */
  servers: NonNullable<ModelList["servers"]>;
  status: "loading" | "ready" | "error";
  error: string | null;
  reload(): void;
  find(name: string | null | undefined): ModelInfo | undefined;
}

const NO_MODELS: ModelInfo[] = [];
const NO_SERVERS: Models["servers"] = [];

/**
 * The installed models, read once per page load, again when the window regains focus (a model may
 * have been removed meanwhile) and on `reload` (the settings re-check, Ollama coming back, a run that
 * found its model gone): listing them asks Ollama, so a picker appearing does not ask again.
 */
/** Every mounted picker's reload; one focus listener calls one of them, so a focus reads the list once. */
const focusReloads = new Set<() => void>();
function reloadOnFocus() {
  const [reload] = focusReloads;
  reload?.();
}

export function useModels(): Models {
  const errorText = useErrorText();
  const { data, error, mutate } = useSWR(cacheKeys.models, () => api.models(), { revalidateIfStale: false });
  const models = data?.models ?? NO_MODELS;

  const reload = useCallback(() => void mutate(), [mutate]);
  // SWR's own focus revalidation is off app-wide (app-shell) and throttled; the list is read on every focus.
  useEffect(() => {
    if (focusReloads.size === 0) window.addEventListener("focus", reloadOnFocus);
    focusReloads.add(reload);
    return () => {
      focusReloads.delete(reload);
      if (focusReloads.size === 0) window.removeEventListener("focus", reloadOnFocus);
    };
  }, [reload]);
  const find = useCallback((name: string | null | undefined) => models.find((m) => m.name === name), [models]);
  return {
    models,
    defaultModel: data?.defaultModel ?? null,
    visionModel: data?.visionModel ?? null,
    servers: data?.servers ?? NO_SERVERS,
    // A failed reload says so, and keeps the models it had.
    status: error !== undefined ? "error" : data ? "ready" : "loading",
    error: error === undefined ? null : errorText(error),
    reload,
    find,
  };
}
