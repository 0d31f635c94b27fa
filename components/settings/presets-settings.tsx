"use client";

import { Loader2, Pencil, Plus, Trash2 } from "lucide-react";
import { useId, useState } from "react";
import { useSWRConfig } from "swr";
import { useTranslations } from "use-intl";
import { usePresets } from "@/components/chat-settings/preset-menu";
import { fromDraft, type SettingsDraft, toDraft } from "@/components/chat-settings/settings-draft";
import { SettingsFields } from "@/components/chat-settings/settings-fields";
import { modelDisplayName } from "@/components/models/model-name";
import { ModelOptions } from "@/components/models/model-options";
import { useModels } from "@/components/models/use-models";
import { Section } from "@/components/shell/page-frame";
import { BUTTON_PRIMARY, BUTTON_SECONDARY, INPUT, InlineError } from "@/components/ui/field";
import { useErrorText } from "@/components/ui/use-error-text";
import { api } from "@/lib/client/api";
import { cacheKeys } from "@/lib/client/cache-keys";
import type { Preset } from "@/lib/client/types";

/**
 * The user's presets (a model + instructions + options to start chats with) on the settings page:
 * add, change, delete, and mark one the default for new chats ("custom instructions").
 */
export function PresetsSettings({
  maxNumCtx,
  maxInstructionsChars,
}: {
  maxNumCtx?: number;
  maxInstructionsChars?: number;
}) {
  const t = useTranslations("chatSettings");
  const message = useErrorText();
  const presets = usePresets();
  const { find } = useModels();
  const { mutate } = useSWRConfig();
  /** The preset being edited: its id, "new", or null when the form is closed. */
  const [editing, setEditing] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const reload = () => mutate(cacheKeys.presets);

  const remove = async (preset: Preset) => {
    setError(null);
    try {
      await api.deletePreset(preset.id);
      await reload();
    } catch (caught) {
      setError(message(caught));
    }
  };

  return (
    <Section title={t("presetsSection")} description={t("presetsDescription")} testId="settings-presets">
      {presets.length > 0 ? (
        <ul className="divide-y divide-border rounded-xl border border-border">
          {presets.map((preset) =>
            editing === preset.id ? (
              <li key={preset.id} className="p-4">
                <PresetForm
                  preset={preset}
                  maxNumCtx={maxNumCtx}
                  maxInstructionsChars={maxInstructionsChars}
                  onDone={() => setEditing(null)}
                />
              </li>
            ) : (
              <li
                key={preset.id}
                data-testid="preset-row"
                data-name={preset.name}
                className="flex flex-wrap items-center gap-x-3 gap-y-1 px-4 py-3"
              >
                <div className="min-w-0 flex-1">
                  <p className="flex items-center gap-2 text-sm font-medium">
                    <span className="truncate">{preset.name}</span>
                    {preset.isDefault ? (
                      <span className="rounded-full bg-sky-100 px-2 py-0.5 text-xs font-medium text-sky-800 dark:bg-sky-500/15 dark:text-sky-200">
                        {t("defaultBadge")}
                      </span>
                    ) : null}
                  </p>
                  <p className="truncate text-xs text-muted-foreground">
                    {preset.model ? modelDisplayName(preset.model, find(preset.model)) : t("presetAnyModel")}
                    {preset.settings.instructions ? ` · ${preset.settings.instructions}` : ""}
                  </p>
                </div>
                <button
                  type="button"
                  onClick={() => setEditing(preset.id)}
                  className={BUTTON_SECONDARY}
                  aria-label={t("editPreset", { name: preset.name })}
                >
                  <Pencil aria-hidden className="size-3.5" />
                  <span className="max-sm:sr-only">{t("edit")}</span>
                </button>
                <button
                  type="button"
                  onClick={() => void remove(preset)}
                  className={BUTTON_SECONDARY}
                  aria-label={t("deletePreset", { name: preset.name })}
                >
                  <Trash2 aria-hidden className="size-3.5" />
                  <span className="max-sm:sr-only">{t("delete")}</span>
                </button>
              </li>
            ),
          )}
        </ul>
      ) : (
        <p className="text-sm text-muted-foreground">{t("noPresets")}</p>
      )}
      {error ? <InlineError>{error}</InlineError> : null}
      {editing === "new" ? (
        <div className="rounded-xl border border-border p-4">
          <PresetForm
            maxNumCtx={maxNumCtx}
            maxInstructionsChars={maxInstructionsChars}
            onDone={() => setEditing(null)}
          />
        </div>
      ) : (
        <button type="button" data-testid="new-preset" onClick={() => setEditing("new")} className={BUTTON_SECONDARY}>
          <Plus aria-hidden className="size-4" />
          {t("newPreset")}
        </button>
      )}
    </Section>
  );
}

function PresetForm({
  preset,
  maxNumCtx,
  maxInstructionsChars,
  onDone,
}: {
  preset?: Preset;
  maxNumCtx?: number;
  maxInstructionsChars?: number;
  onDone: () => void;
}) {
  const t = useTranslations("chatSettings");
  const message = useErrorText();
  const id = useId();
  const { models, find } = useModels();
  const { mutate } = useSWRConfig();
  const [name, setName] = useState(preset?.name ?? "");
  const [model, setModel] = useState(preset?.model ?? "");
  const [isDefault, setIsDefault] = useState(preset?.isDefault ?? false);
  const [draft, setDraft] = useState<SettingsDraft>(() => toDraft(preset?.settings));
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);

  const save = async () => {
    setBusy(true);
    setError(null);
    const fields = { name, model: model || null, settings: fromDraft(draft), isDefault };
    try {
      if (preset) await api.updatePreset(preset.id, fields);
      else await api.createPreset(fields);
      await mutate(cacheKeys.presets);
      onDone();
    } catch (caught) {
      setError(message(caught));
    } finally {
      setBusy(false);
    }
  };

  return (
    <form
      data-testid="preset-form"
      aria-label={preset ? t("editPreset", { name: preset.name }) : t("newPreset")}
      noValidate
      className="space-y-4"
      onSubmit={(event) => {
        event.preventDefault();
        void save();
      }}
    >
      <div className="grid gap-4 sm:grid-cols-2">
        <div className="space-y-1.5">
          <label htmlFor={`${id}-name`} className="text-sm font-medium">
            {t("presetName")}
          </label>
          <input
            id={`${id}-name`}
            data-testid="preset-name"
            value={name}
            onChange={(event) => setName(event.target.value)}
            maxLength={100}
            required
            className={INPUT}
          />
        </div>
        <div className="space-y-1.5">
          <label htmlFor={`${id}-model`} className="text-sm font-medium">
            {t("presetModel")}
          </label>
          <select
            id={`${id}-model`}
            data-testid="preset-model"
            value={model}
            onChange={(event) => setModel(event.target.value)}
            className={INPUT}
          >
            <option value="">{t("presetAnyModel")}</option>
            <ModelOptions models={models} kept={model} />
          </select>
        </div>
      </div>
      <SettingsFields
        draft={draft}
        onChange={setDraft}
        model={model ? find(model) : undefined}
        maxNumCtx={maxNumCtx}
        maxInstructionsChars={maxInstructionsChars}
      />
      <label className="flex items-center gap-2 text-sm">
        <input
          type="checkbox"
          data-testid="preset-default"
          checked={isDefault}
          onChange={(event) => setIsDefault(event.target.checked)}
          className="size-4 accent-foreground"
        />
        {t("presetIsDefault")}
      </label>
      {error ? <InlineError data-testid="preset-error">{error}</InlineError> : null}
      <div className="flex justify-end gap-2">
        <button type="button" onClick={onDone} className={BUTTON_SECONDARY}>
          {t("cancel")}
        </button>
        <button type="submit" data-testid="preset-save" disabled={busy} className={BUTTON_PRIMARY}>
          {busy ? <Loader2 aria-hidden className="size-4 animate-spin" /> : null}
          {t("savePreset")}
        </button>
      </div>
    </form>
  );
}
