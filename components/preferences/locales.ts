/** The UI languages and how a browser's preference maps to one of them. */
export const LOCALES = ["en", "ja"] as const;
export type Locale = (typeof LOCALES)[number];

export const LOCALE_KEY = "ollama-web.locale";
export const LOCALE_COOKIE = "ow_locale";

export function isLocale(value: unknown): value is Locale {
  return typeof value === "string" && (LOCALES as readonly string[]).includes(value);
}

/** The first supported language of a list such as `navigator.languages` or an Accept-Language header. */
export function pickLocale(preferred: readonly string[]): Locale {
  for (const tag of preferred) {
    const base = tag.trim().split(/[-;_]/)[0]?.toLowerCase();
    if (isLocale(base)) return base;
  }
  return "en";
}

export function localeFromAcceptLanguage(header: string | null): Locale {
  return pickLocale((header ?? "").split(","));
}
