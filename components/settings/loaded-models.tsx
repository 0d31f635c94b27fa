"use client";

import { Loader2, PowerOff } from "lucide-react";
import { useState } from "react";
import useSWR from "swr";
import { useFormatter, useNow, useTranslations } from "use-intl";
import { BUTTON_SECONDARY, InlineError } from "@/components/ui/field";
import { useErrorText } from "@/components/ui/use-error-text";
import { api } from "@/lib/client/api";
import { cacheKeys } from "@/lib/client/cache-keys";
import { formatBytes } from "@/lib/client/format";

/**
 * What Ollama holds in memory now (`/api/ps`): VRAM size, when it unloads, and Unload; with several
 * servers, one row per server that holds it.
 */
export function LoadedModels({ manyServers }: { manyServers: boolean }) {
  const t = useTranslations("modelAdmin");
  const message = useErrorText();
  const format = useFormatter();
  // Relative times need a "now" (without one use-intl reports an error); it moves with the list's refresh.
  const now = useNow({ updateInterval: 15_000 });
  const { data, error, mutate } = useSWR(cacheKeys.loadedModels, () => api.loadedModels(), { refreshInterval: 15_000 });
  const [unloading, setUnloading] = useState<string | null>(null);
  const [unloadError, setUnloadError] = useState<string | null>(null);

  const unload = async (model: string, server: string) => {
    setUnloading(`${server} ${model}`);
    setUnloadError(null);
    try {
      await api.unloadModel(model, server);
    } catch (caught) {
      setUnloadError(message(caught));
    }
    setUnloading(null);
    await mutate();
  };

  return (
    <div className="rounded-xl border border-border" data-testid="loaded-models">
      {error ? <InlineError className="m-3">{message(error)}</InlineError> : null}
      {unloadError ? <InlineError className="m-3">{unloadError}</InlineError> : null}
      {data?.models.length === 0 ? <p className="p-4 text-sm text-muted-foreground">{t("noneLoaded")}</p> : null}
      <ul className="divide-y divide-border">
        {data?.models.map((model) => (
          <li
            key={`${model.server} ${model.name}`}
            data-testid="loaded-model"
            data-model={model.name}
            data-server={model.server}
            className="flex flex-wrap items-center gap-x-3 gap-y-2 px-4 py-3"
          >
            <div className="min-w-0 flex-1">
              <p className="truncate font-mono text-sm font-medium">{model.name}</p>
              <p className="text-xs text-muted-foreground">
                {[
                  manyServers ? model.server : null,
                  model.vramBytes === null ? null : t("vram", { size: formatBytes(model.vramBytes) }),
                  model.expiresAt === null
                    ? t("keptForever")
                    : t("unloadsAt", { when: format.relativeTime(new Date(model.expiresAt), now) }),
                ]
                  .filter(Boolean)
                  .join(" · ")}
              </p>
            </div>
            <button
              type="button"
              className={BUTTON_SECONDARY}
              data-testid="model-unload"
              aria-label={t("unloadNamed", { model: model.name })}
              disabled={unloading !== null}
              onClick={() => void unload(model.name, model.server)}
            >
              {unloading === `${model.server} ${model.name}` ? (
                <Loader2 aria-hidden className="size-4 animate-spin" />
              ) : (
                <PowerOff aria-hidden className="size-4" />
              )}
              {t("unload")}
            </button>
          </li>
        ))}
      </ul>
    </div>
  );
}
