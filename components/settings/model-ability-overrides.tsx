"use client";

import { useTranslations } from "use-intl";
import { CapabilityBadges } from "@/components/models/capability-badges";
import { INPUT } from "@/components/ui/field";
import type { SettingsPatch } from "@/lib/client/api";
import type { ModelInfo } from "@/lib/client/types";
import type { AbilityOverride } from "@/lib/llm/ability-override";

const ABILITIES = ["tool_call", "json_mode", "vision", "thinking"] as const;
type Ability = (typeof ABILITIES)[number];
/** What a probe finds out; the others are off unless the admin turns them on. */
const PROBED: ReadonlySet<Ability> = new Set(["tool_call", "json_mode"]);

type Choice = "auto" | "on" | "off";
const choiceOf = (value: boolean | undefined): Choice => (value === undefined ? "auto" : value ? "on" : "off");

/**
 * Per model of one OpenAI-compatible server, the admin's word on tool calling, JSON mode, vision and
 * thinking: auto (what the probe found; off for vision and thinking, which no probe finds), on or off.
 * A change saves the model's overrides whole (`modelAbilities`, docs/api.md `PATCH /api/settings`);
 * all auto drops them.
 */
export function ModelAbilityOverrides({
  models,
  overrides,
  onSave,
}: {
  models: ModelInfo[];
  overrides: Record<string, AbilityOverride>;
  onSave: (patch: SettingsPatch) => Promise<void>;
}) {
  const t = useTranslations("modelAdmin");
  if (models.length === 0) return null;
  const change = (name: string, ability: Ability, choice: Choice) => {
    const next: AbilityOverride = { ...overrides[name] };
    if (choice === "auto") delete next[ability];
    else next[ability] = choice === "on";
    void onSave({ modelAbilities: { [name]: Object.keys(next).length ? next : null } });
  };
  return (
    <div className="space-y-2 pt-1" data-testid="model-abilities">
      <p className="text-xs text-muted-foreground">{t("abilitiesHint")}</p>
      <ul className="space-y-2">
        {models.map((model) => {
          const own = model.openaiCompatible?.model ?? model.name;
          return (
            <li
              key={model.name}
              data-testid="model-ability-row"
              data-model={model.name}
              className="rounded-lg bg-muted/50 px-3 py-2"
            >
              <div className="flex flex-wrap items-center gap-2">
                <p className="min-w-0 break-all font-mono text-sm font-medium">{own}</p>
                <CapabilityBadges model={model} />
              </div>
              <div className="mt-2 grid grid-cols-2 gap-2 sm:grid-cols-4">
                {ABILITIES.map((ability) => (
                  <label key={ability} className="block min-w-0 space-y-1 text-xs font-medium">
                    <span>{t(`ability.${ability}`)}</span>
                    <select
                      data-testid="ability-override"
                      data-ability={ability}
                      aria-label={t("abilityFor", { ability: t(`ability.${ability}`), model: own })}
                      className={`${INPUT} py-1.5`}
                      value={choiceOf(overrides[model.name]?.[ability])}
                      onChange={(event) => change(model.name, ability, event.target.value as Choice)}
                    >
                      <option value="auto">{t(PROBED.has(ability) ? "abilityAuto" : "abilityAutoOff")}</option>
                      <option value="on">{t("abilityOn")}</option>
                      <option value="off">{t("abilityOff")}</option>
                    </select>
                  </label>
                ))}
              </div>
            </li>
          );
        })}
      </ul>
    </div>
  );
}
