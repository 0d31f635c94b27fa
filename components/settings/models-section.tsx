"use client";

import { mutate } from "swr";
import { useTranslations } from "use-intl";
import { useModels } from "@/components/models/use-models";
import { Section } from "@/components/shell/page-frame";
import type { SettingsPatch } from "@/lib/client/api";
import { cacheKeys } from "@/lib/client/cache-keys";
import type { AbilityOverride } from "@/lib/llm/ability-override";
import { InstalledModels } from "./installed-models";
import { LoadedModels } from "./loaded-models";
import { OllamaServers, useOllamaServers } from "./ollama-servers";
import { OpenAICompatibleServers } from "./openai-compatible-servers";
import { PullModel } from "./pull-model";

/**
 * Ollama for an admin: each server's state (and the OpenAI-compatible servers' beside, with their
 * models' ability overrides), pull (onto one server or all), the installed list (details, delete) and
 * what is loaded now. A pulled or deleted model reaches every picker at once: they share the model
 * list's SWR entry.
 */
export function ModelsSection({
  modelAbilities,
  onSave,
}: {
  modelAbilities: Record<string, AbilityOverride>;
  onSave: (patch: SettingsPatch) => Promise<void>;
}) {
  const t = useTranslations("modelAdmin");
  const { reload } = useModels();
  const servers = useOllamaServers().data?.servers.map((server) => server.url) ?? [];
  const manyServers = servers.length > 1;
  const changed = () => {
    reload();
    void mutate(cacheKeys.loadedModels);
    void mutate(cacheKeys.ollamaServers);
  };
  return (
    <>
      <Section title={t("serversTitle")} description={t("serversDescription")} testId="settings-ollama-servers">
        <div className="space-y-3">
          <OllamaServers />
          <OpenAICompatibleServers overrides={modelAbilities} onSave={onSave} />
        </div>
      </Section>
      <Section title={t("title")} description={t("description")} testId="settings-models">
        <div className="space-y-3">
          <PullModel onPulled={changed} servers={servers} />
          <InstalledModels onDeleted={changed} manyServers={manyServers} />
        </div>
      </Section>
      <Section title={t("loadedTitle")} description={t("loadedDescription")} testId="settings-loaded">
        <LoadedModels manyServers={manyServers} />
      </Section>
    </>
  );
}
