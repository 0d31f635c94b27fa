"use client";

import { useId } from "react";
import { useTranslations } from "use-intl";
import { LOCALES } from "@/components/preferences/locales";
import { usePreferences } from "@/components/preferences/preferences";
import { THEMES } from "@/components/preferences/theme-script";
import { Section } from "@/components/shell/page-frame";
import { INPUT } from "@/components/ui/field";

/** Language and theme of this browser (remembered here, not on the server). */
export function AppearanceSettings() {
  const t = useTranslations("preferences");
  const { locale, setLocale, theme, setTheme } = usePreferences();
  const languageId = useId();
  const themeId = useId();
  return (
    <Section title={t("section")} description={t("description")} testId="settings-appearance">
      <div className="grid gap-4 rounded-xl border border-border p-4 sm:grid-cols-2">
        <div className="space-y-1">
          <label htmlFor={languageId} className="text-sm font-medium">
            {t("language")}
          </label>
          <select
            id={languageId}
            data-testid="language-select"
            className={INPUT}
            value={locale}
            onChange={(event) => {
              const next = LOCALES.find((l) => l === event.target.value);
              if (next) setLocale(next);
            }}
          >
            {LOCALES.map((l) => (
              <option key={l} value={l} lang={l}>
                {t(`languageName.${l}`)}
              </option>
            ))}
          </select>
        </div>
        <div className="space-y-1">
          <label htmlFor={themeId} className="text-sm font-medium">
            {t("theme")}
          </label>
          <select
            id={themeId}
            data-testid="theme-select"
            className={INPUT}
            value={theme}
            onChange={(event) => {
              const next = THEMES.find((th) => th === event.target.value);
              if (next) setTheme(next);
            }}
          >
            {THEMES.map((th) => (
              <option key={th} value={th}>
                {t(`themeName.${th}`)}
              </option>
            ))}
          </select>
        </div>
      </div>
    </Section>
  );
}
