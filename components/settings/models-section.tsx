"use client";

import { mutate } from "swr";
import { useTranslations } from "use-intl";
import { useModels } from "@/components/models/use-models";
import { Section } from "@/components/shell/page-frame";
import { cacheKeys } from "@/lib/client/cache-keys";
import { InstalledModels } from "./installed-models";
import { LoadedModels } from "./loaded-models";
import { PullModel } from "./pull-model";

/**
 * Ollama's models for an admin: pull, the installed list (details, delete) and what is loaded now.
 * A pulled or deleted model reaches every picker at once: they share the model list's SWR entry.
 */
export function ModelsSection() {
  const t = useTranslations("modelAdmin");
  const { reload } = useModels();
  return (
    <>
      <Section title={t("title")} description={t("description")} testId="settings-models">
        <div className="space-y-3">
          <PullModel onPulled={reload} />
          <InstalledModels
            onDeleted={() => {
              reload();
              void mutate(cacheKeys.loadedModels);
            }}
          />
        </div>
      </Section>
      <Section title={t("loadedTitle")} description={t("loadedDescription")} testId="settings-loaded">
        <LoadedModels />
      </Section>
    </>
  );
}
