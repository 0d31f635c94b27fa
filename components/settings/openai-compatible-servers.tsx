"use client";

import { CircleCheck, CircleX, KeyRound } from "lucide-react";
import { useTranslations } from "use-intl";
import { useModels } from "@/components/models/use-models";
import type { SettingsPatch } from "@/lib/client/api";
import type { AbilityOverride } from "@/lib/llm/ability-override";
import type { ServerModelsState } from "@/lib/llm/openai-compatible/server-models";
import { ModelAbilityOverrides } from "./model-ability-overrides";
import { useOllamaServers } from "./ollama-servers";

const STATE_STYLE: Record<ServerModelsState, { icon: typeof CircleCheck; className: string }> = {
  up: { icon: CircleCheck, className: "text-emerald-700 dark:text-emerald-300" },
  down: { icon: CircleX, className: "text-red-700 dark:text-red-300" },
  key_refused: { icon: KeyRound, className: "text-red-700 dark:text-red-300" },
};

/**
 * The OpenAI-compatible servers (OPENAI_COMPATIBLE_URLS): label, URL, up, down or key refused (and
 * why), model count, and whether a key is set — shown masked, since no API returns it; under each, its
 * models' ability overrides.
 */
export function OpenAICompatibleServers({
  overrides,
  onSave,
}: {
  overrides: Record<string, AbilityOverride>;
  onSave: (patch: SettingsPatch) => Promise<void>;
}) {
  const t = useTranslations("modelAdmin");
  const servers = useOllamaServers().data?.openaiCompatible ?? [];
  const { models, reload } = useModels();
  // The list's abilities follow the overrides, so it is read again once they are saved.
  const save = async (patch: SettingsPatch) => {
    await onSave(patch);
    reload();
  };
  if (servers.length === 0) return null;
  return (
    <div className="rounded-xl border border-border" data-testid="openai-servers">
      <ul className="divide-y divide-border">
        {servers.map((server) => {
          const { icon: Icon, className } = STATE_STYLE[server.state];
          const facts = [
            t("serverModels", { count: server.models }),
            server.keySet ? t("openaiKeySet") : t("openaiNoKey"),
          ];
          return (
            <li
              key={server.label}
              data-testid="openai-server"
              data-label={server.label}
              data-state={server.state}
              className="space-y-1 px-4 py-3"
            >
              <div className="flex flex-wrap items-center gap-x-3 gap-y-1">
                <span className={`inline-flex items-center gap-1.5 text-sm font-medium ${className}`}>
                  <Icon aria-hidden className="size-4" />
                  {t(`openaiState.${server.state}`)}
                </span>
                <p className="text-sm font-medium">{server.label}</p>
                <p className="min-w-0 flex-1 break-all font-mono text-sm text-muted-foreground">{server.url}</p>
              </div>
              <p className="text-xs text-muted-foreground">{facts.join(" · ")}</p>
              {server.error ? (
                <p className="break-words text-xs text-red-700 dark:text-red-300" data-testid="openai-server-error">
                  {server.error}
                </p>
              ) : null}
              <ModelAbilityOverrides
                models={models.filter((model) => model.openaiCompatible?.label === server.label)}
                overrides={overrides}
                onSave={save}
              />
            </li>
          );
        })}
      </ul>
    </div>
  );
}
