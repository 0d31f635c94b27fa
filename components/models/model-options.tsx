"use client";

import { useTranslations } from "use-intl";
import type { ModelInfo } from "@/lib/client/types";
import { groupModels, modelDisplayName } from "./model-name";

/**
 * The `<option>`s of a native model select: Ollama's models, then one `<optgroup>` per
 * OpenAI-compatible server (only when there is one), each option named "qwen3 · llama" so a name two
 * servers have reads as two choices. `kept` is a chosen name not in the list (a model gone), shown first.
 */
export function ModelOptions({ models, kept }: { models: ModelInfo[]; kept?: string | null }) {
  const t = useTranslations("models");
  const groups = groupModels(models);
  const grouped = groups.some((group) => group.server !== null);
  const missing = kept && !models.some((model) => model.name === kept) ? kept : null;
  const options = (list: ModelInfo[]) =>
    list.map((model) => (
      <option key={model.name} value={model.name}>
        {modelDisplayName(model.name, model)}
      </option>
    ));
  return (
    <>
      {missing ? <option value={missing}>{modelDisplayName(missing)}</option> : null}
      {grouped
        ? groups.map((group) => (
            <optgroup
              key={group.server ?? ""}
              label={group.server === null ? t("ollamaGroup") : t("serverGroup", { label: group.server })}
            >
              {options(group.models)}
            </optgroup>
          ))
        : options(models)}
    </>
  );
}
