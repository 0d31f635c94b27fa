"use client";

import { createContext, type ReactNode, useCallback, useContext, useEffect, useMemo, useState } from "react";
import { api } from "@/lib/client/api";
import type { ModelInfo } from "@/lib/client/types";

export interface Models {
  models: ModelInfo[];
  defaultModel: string | null;
  status: "loading" | "ready" | "error";
  error: string | null;
  reload(): void;
  find(name: string | null | undefined): ModelInfo | undefined;
}

const ModelsContext = createContext<Models | null>(null);

/** The installed models, read once and again on `reload` (e.g. when Ollama comes back). */
export function ModelsProvider({ children }: { children: ReactNode }) {
  const [models, setModels] = useState<ModelInfo[]>([]);
  const [defaultModel, setDefaultModel] = useState<string | null>(null);
  const [status, setStatus] = useState<Models["status"]>("loading");
  const [error, setError] = useState<string | null>(null);

  const load = useCallback((signal?: AbortSignal) => {
    api
      .models(signal)
      .then((list) => {
        setModels(list.models);
        setDefaultModel(list.defaultModel);
        setStatus("ready");
        setError(null);
      })
      .catch((failure: unknown) => {
        if (signal?.aborted) return;
        setStatus("error");
        setError(failure instanceof Error ? failure.message : String(failure));
      });
  }, []);

  useEffect(() => {
    const controller = new AbortController();
    load(controller.signal);
    return () => controller.abort();
  }, [load]);

  const reload = useCallback(() => load(), [load]);
  const find = useCallback((name: string | null | undefined) => models.find((m) => m.name === name), [models]);
  const value = useMemo(
    () => ({ models, defaultModel, status, error, reload, find }),
    [models, defaultModel, status, error, reload, find],
  );
  return <ModelsContext value={value}>{children}</ModelsContext>;
}

export function useModels(): Models {
  const value = useContext(ModelsContext);
  if (!value) throw new Error("useModels must be used inside <ModelsProvider>");
  return value;
}
