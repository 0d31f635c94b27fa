"use client";

import { useId } from "react";
import useSWR from "swr";
import { useTranslations } from "use-intl";
import { INPUT } from "@/components/ui/field";
import { api } from "@/lib/client/api";
import { cacheKeys } from "@/lib/client/cache-keys";
import type { Preset } from "@/lib/client/types";

/** The choice of a preset for a new chat: "" = the personal default (if any), "none", or a preset's id. */
export type PresetChoice = string;

export function usePresets(): Preset[] {
  const { data } = useSWR(cacheKeys.presets, () => api.presets());
  return data?.presets ?? [];
}

/** The preset a choice stands for, if any. */
export function chosenPreset(presets: Preset[], choice: PresetChoice): Preset | undefined {
  return choice === "" ? presets.find((preset) => preset.isDefault) : presets.find((preset) => preset.id === choice);
}

/** What `POST /api/conversations` takes for a choice: left out (the default), null (none) or an id. */
export function presetIdFor(choice: PresetChoice): string | null | undefined {
  return choice === "" ? undefined : choice === "none" ? null : choice;
}

/** The new chat's preset menu, next to the model picker; shown once the user has a preset. */
export function PresetMenu({
  presets,
  value,
  onChange,
}: {
  presets: Preset[];
  value: PresetChoice;
  onChange: (choice: PresetChoice) => void;
}) {
  const t = useTranslations("chatSettings");
  const id = useId();
  if (presets.length === 0) return null;
  const personal = presets.find((preset) => preset.isDefault);
  return (
    <div className="flex items-center gap-2">
      <label htmlFor={id} className="sr-only">
        {t("preset")}
      </label>
      <select
        id={id}
        data-testid="preset-menu"
        value={value}
        onChange={(event) => onChange(event.target.value)}
        className={`${INPUT} w-auto max-w-44 py-1.5 sm:max-w-56`}
      >
        <option value="">{personal ? t("presetDefault", { name: personal.name }) : t("presetNone")}</option>
        {personal ? <option value="none">{t("presetNone")}</option> : null}
        {presets
          .filter((preset) => preset !== personal)
          .map((preset) => (
            <option key={preset.id} value={preset.id}>
              {preset.name}
            </option>
          ))}
      </select>
    </div>
  );
}
