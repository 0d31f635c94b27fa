"use client";

import { CircleCheck, CircleX, Loader2, RefreshCw } from "lucide-react";
import { useEffect } from "react";
import useSWR from "swr";
import useSWRMutation from "swr/mutation";
import { useTranslations } from "use-intl";
import { useModels } from "@/components/models/use-models";
import { PageFrame, Section } from "@/components/shell/page-frame";
import { BUTTON_SECONDARY, InlineError } from "@/components/ui/field";
import { useErrorText } from "@/components/ui/use-error-text";
import type { SettingsPatch } from "@/lib/client/api";
import { api } from "@/lib/client/api";
import { cacheKeys } from "@/lib/client/cache-keys";
import { AppearanceSettings } from "./appearance-settings";
import { LimitsTable } from "./limits-table";
import { McpSettings } from "./mcp/mcp-settings";
import { MemorySettings } from "./memory-settings";
import { ModelsSection } from "./models-section";
import { PasswordSettings } from "./password-settings";
import { PresetsSettings } from "./presets-settings";
import { RoleSettings } from "./role-settings";
import { SourceBadge } from "./source-badge";
import { YourDataSettings } from "./your-data-settings";

/**
 * `/settings`: this browser's language and theme; the server's Ollama URL with a live check, model
 * roles, search backend (admins edit; environment values are read-only) and the agent's and tools' limits.
 */
export function SettingsView() {
  const t = useTranslations("settings");
  const message = useErrorText();
  const { data: settings, error, isValidating: checking, mutate } = useSWR(cacheKeys.settings, () => api.settings());
  // The server answers a save with the new values; they are written into the shown settings
  // without reading them again (which would also re-check Ollama).
  const saving = useSWRMutation(
    cacheKeys.settings,
    (_key: string, { arg }: { arg: SettingsPatch }) => api.updateSettings(arg),
    {
      revalidate: false,
      throwOnError: false,
      onSuccess: (next) => void mutate((shown) => shown && { ...shown, ...next }, { revalidate: false }),
    },
  );
  const saveError = saving.error === undefined || saving.isMutating ? null : message(saving.error);
  const { reload: reloadModels } = useModels();

  useEffect(() => {
    document.title = `${t("title")} · ollama-web`;
  }, [t]);

  const save = async (patch: SettingsPatch) => {
    await saving.trigger(patch);
  };

  return (
    <PageFrame title={t("title")}>
      <AppearanceSettings />
      <PasswordSettings />
      <PresetsSettings
        maxNumCtx={settings?.limits.NUM_CTX?.value}
        maxInstructionsChars={settings?.limits.MAX_INSTRUCTIONS_CHARS?.value}
      />
      <MemorySettings />
      <YourDataSettings />
      {error ? <InlineError data-testid="settings-error">{message(error)}</InlineError> : null}
      {settings === undefined && !error ? (
        <p role="status" className="flex items-center gap-2 text-sm text-muted-foreground">
          <Loader2 aria-hidden className="size-4 animate-spin" />
          {t("loading")}
        </p>
      ) : null}
      {settings ? (
        <>
          <Section title={t("ollamaSection")} testId="settings-ollama">
            <div className="space-y-3 rounded-xl border border-border p-4">
              {settings.ollamaUrl === undefined ? null : (
                <div className="flex flex-wrap items-center gap-2 text-sm">
                  <span className="text-muted-foreground">
                    {t(settings.ollamaUrlEnv === "OLLAMA_BASE_URLS" ? "ollamaUrls" : "ollamaUrl")}
                  </span>
                  <code data-testid="ollama-url" className="rounded bg-muted px-1.5 py-0.5 font-mono text-[0.8125rem]">
                    {settings.ollamaUrl}
                  </code>
                  <SourceBadge source="env" envName={settings.ollamaUrlEnv ?? "OLLAMA_BASE_URL"} />
                </div>
              )}
              <div className="flex flex-wrap items-center justify-between gap-3">
                {settings.ollama.reachable ? (
                  <p data-testid="ollama-check" data-ok="true" className="flex items-center gap-2 text-sm">
                    <CircleCheck aria-hidden className="size-4 text-emerald-600 dark:text-emerald-400" />
                    {t("ollamaReachable", { version: settings.ollama.version ?? "?" })}
                  </p>
                ) : (
                  <div data-testid="ollama-check" data-ok="false" className="space-y-1 text-sm">
                    <p className="flex items-center gap-2 font-medium text-red-700 dark:text-red-300">
                      <CircleX aria-hidden className="size-4" />
                      {t("ollamaUnreachable")}
                    </p>
                    {settings.ollama.error ? (
                      <p className="break-words text-muted-foreground">{settings.ollama.error}</p>
                    ) : null}
                    <p className="text-muted-foreground">{t("ollamaFix")}</p>
                  </div>
                )}
                <button
                  type="button"
                  className={BUTTON_SECONDARY}
                  data-testid="ollama-recheck"
                  disabled={checking}
                  onClick={() => {
                    void mutate();
                    reloadModels();
                  }}
                >
                  <RefreshCw aria-hidden className={checking ? "size-4 animate-spin" : "size-4"} />
                  {t("recheck")}
                </button>
              </div>
            </div>
          </Section>
          {settings.editable ? null : (
            <p data-testid="settings-readonly" className="text-sm text-muted-foreground">
              {t("adminOnly")}
            </p>
          )}
          {saveError ? <InlineError data-testid="settings-save-error">{saveError}</InlineError> : null}
          {settings.editable ? <ModelsSection modelAbilities={settings.modelAbilities} onSave={save} /> : null}
          <RoleSettings settings={settings} onSave={save} />
          {settings.editable ? <McpSettings /> : null}
          <LimitsTable limits={settings.limits} />
        </>
      ) : null}
    </PageFrame>
  );
}
