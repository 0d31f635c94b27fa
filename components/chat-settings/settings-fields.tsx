"use client";

import { useId } from "react";
import { useTranslations } from "use-intl";
import { INPUT } from "@/components/ui/field";
import { SETTINGS_RANGES } from "@/lib/chat-settings";
import type { ModelInfo } from "@/lib/client/types";
import type { SettingsDraft } from "./settings-draft";

/**
 * The fields of a chat's own settings, shared by a conversation's panel and the preset form. Each
 * empty field shows the default it stands for. `model` (when known) says whether thinking applies
 * and which cap holds the context: the model's length or the server's NUM_CTX.
 */
export function SettingsFields({
  draft,
  onChange,
  model,
  maxNumCtx,
  maxInstructionsChars,
}: {
  draft: SettingsDraft;
  onChange: (draft: SettingsDraft) => void;
  model: ModelInfo | undefined;
  /** NUM_CTX, when the model is not known (a preset for any model). */
  maxNumCtx?: number;
  maxInstructionsChars?: number;
}) {
  const t = useTranslations("chatSettings");
  const id = useId();
  const set = (field: keyof SettingsDraft) => (value: string) => onChange({ ...draft, [field]: value });
  const contextCap = model?.usableContext ?? maxNumCtx;
  const cappedByModel = model?.contextLength != null && model.contextLength === model.usableContext;
  const { temperature, topP, seed, numCtx } = SETTINGS_RANGES;

  return (
    <div className="space-y-4">
      <div className="space-y-1.5">
        <label htmlFor={`${id}-instructions`} className="text-sm font-medium">
          {t("instructions")}
        </label>
        <p id={`${id}-instructions-hint`} className="text-xs text-muted-foreground">
          {t("instructionsHint")}
        </p>
        <textarea
          id={`${id}-instructions`}
          data-testid="settings-instructions"
          aria-describedby={`${id}-instructions-hint`}
          value={draft.instructions}
          onChange={(event) => set("instructions")(event.target.value)}
          maxLength={maxInstructionsChars}
          rows={5}
          placeholder={t("instructionsPlaceholder")}
          className={`${INPUT} min-h-24 resize-y`}
        />
      </div>
      <div className="grid gap-4 sm:grid-cols-2">
        <NumberField
          id={`${id}-temperature`}
          testId="settings-temperature"
          label={t("temperature")}
          hint={t("temperatureHint", { min: temperature.min, max: temperature.max })}
          placeholder={t("modelDefault")}
          value={draft.temperature}
          onChange={set("temperature")}
          min={temperature.min}
          max={temperature.max}
          step={0.05}
        />
        <NumberField
          id={`${id}-top-p`}
          testId="settings-top-p"
          label={t("topP")}
          hint={t("topPHint", { min: topP.min, max: topP.max })}
          placeholder={t("modelDefault")}
          value={draft.topP}
          onChange={set("topP")}
          min={topP.min}
          max={topP.max}
          step={0.05}
        />
        <NumberField
          id={`${id}-seed`}
          testId="settings-seed"
          label={t("seed")}
          hint={t("seedHint")}
          placeholder={t("randomSeed")}
          value={draft.seed}
          onChange={set("seed")}
          min={seed.min}
          max={seed.max}
          step={1}
        />
        <NumberField
          id={`${id}-num-ctx`}
          testId="settings-num-ctx"
          label={t("numCtx")}
          hint={
            contextCap === undefined
              ? t("numCtxHint")
              : cappedByModel
                ? t("numCtxCapModel", { max: contextCap })
                : t("numCtxCapServer", { max: contextCap })
          }
          placeholder={contextCap === undefined ? t("serverDefault") : t("defaultValue", { value: contextCap })}
          value={draft.numCtx}
          onChange={set("numCtx")}
          min={numCtx.min}
          max={contextCap}
          step={512}
        />
      </div>
      <div className="space-y-1.5">
        <label htmlFor={`${id}-think`} className="block text-sm font-medium">
          {t("thinking")}
        </label>
        {model && !model.abilities.thinking ? (
          <p id={`${id}-think-hint`} className="text-xs text-muted-foreground">
            {t("thinkingUnsupported", { model: model.name })}
          </p>
        ) : null}
        <select
          id={`${id}-think`}
          data-testid="settings-think"
          aria-describedby={model && !model.abilities.thinking ? `${id}-think-hint` : undefined}
          value={draft.think}
          onChange={(event) => set("think")(event.target.value)}
          className={`${INPUT} sm:w-56`}
        >
          <option value="default">{t("thinkingDefault")}</option>
          <option value="on">{t("thinkingOn")}</option>
          <option value="off">{t("thinkingOff")}</option>
        </select>
      </div>
    </div>
  );
}

function NumberField({
  id,
  testId,
  label,
  hint,
  placeholder,
  value,
  onChange,
  min,
  max,
  step,
}: {
  id: string;
  testId: string;
  label: string;
  hint: string;
  placeholder: string;
  value: string;
  onChange: (value: string) => void;
  min: number;
  max?: number;
  step: number;
}) {
  return (
    <div className="space-y-1.5">
      <label htmlFor={id} className="text-sm font-medium">
        {label}
      </label>
      <input
        id={id}
        data-testid={testId}
        type="number"
        inputMode="decimal"
        aria-describedby={`${id}-hint`}
        value={value}
        onChange={(event) => onChange(event.target.value)}
        placeholder={placeholder}
        min={min}
        max={max}
        step={step}
        className={INPUT}
      />
      <p id={`${id}-hint`} className="text-xs text-muted-foreground">
        {hint}
      </p>
    </div>
  );
}
