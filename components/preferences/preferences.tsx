"use client";

import { createContext, type ReactNode, useCallback, useContext, useEffect, useMemo, useState } from "react";
import { IntlProvider } from "use-intl";
import en from "@/messages/en.json";
import ja from "@/messages/ja.json";
import { isLocale, LOCALE_COOKIE, LOCALE_KEY, type Locale, pickLocale } from "./locales";
import { THEME_KEY, THEMES, type Theme } from "./theme-script";

const MESSAGES = { en, ja } as const;

export interface Preferences {
  locale: Locale;
  setLocale(locale: Locale): void;
  theme: Theme;
  setTheme(theme: Theme): void;
}

const PreferencesContext = createContext<Preferences | null>(null);

function read(key: string): string | null {
  try {
    return window.localStorage.getItem(key);
  } catch {
    return null;
  }
}

function write(key: string, value: string): void {
  try {
    window.localStorage.setItem(key, value);
  } catch {
    // private mode or storage full: the choice lasts for this page only
  }
}

function applyTheme(theme: Theme): void {
  const dark = theme === "dark" || (theme === "system" && window.matchMedia("(prefers-color-scheme: dark)").matches);
  document.documentElement.classList.toggle("dark", dark);
  document.documentElement.style.colorScheme = dark ? "dark" : "light";
}

// Only dates in lists the browser loads itself are formatted, so the server's zone never shows.
const timeZone = typeof window === "undefined" ? "UTC" : Intl.DateTimeFormat().resolvedOptions().timeZone;

/**
 * Language and theme: both remembered in this browser. The language starts from the server's guess
 * (cookie, then Accept-Language) and follows `navigator.languages` until the user picks one.
 */
export function PreferencesProvider({ initialLocale, children }: { initialLocale: Locale; children: ReactNode }) {
  const [locale, setLocaleState] = useState<Locale>(initialLocale);
  const [theme, setThemeState] = useState<Theme>("system");

  useEffect(() => {
    const stored = read(LOCALE_KEY);
    setLocaleState(isLocale(stored) ? stored : pickLocale(navigator.languages ?? [navigator.language]));
    const storedTheme = read(THEME_KEY);
    if ((THEMES as readonly string[]).includes(storedTheme ?? "")) setThemeState(storedTheme as Theme);
  }, []);

  useEffect(() => {
    document.documentElement.lang = locale;
    // The server draws the next page in this language (the Cookie Store API is not in every browser).
    // biome-ignore lint/suspicious/noDocumentCookie: a plain preference cookie, set once per change
    document.cookie = `${LOCALE_COOKIE}=${locale}; path=/; max-age=31536000; samesite=lax`;
  }, [locale]);

  // "system" keeps following the system while the page is open.
  useEffect(() => {
    applyTheme(theme);
    if (theme !== "system") return;
    const query = window.matchMedia("(prefers-color-scheme: dark)");
    const onChange = () => applyTheme("system");
    query.addEventListener("change", onChange);
    return () => query.removeEventListener("change", onChange);
  }, [theme]);

  const setLocale = useCallback((next: Locale) => {
    write(LOCALE_KEY, next);
    setLocaleState(next);
  }, []);
  const setTheme = useCallback((next: Theme) => {
    write(THEME_KEY, next);
    setThemeState(next);
  }, []);

  const value = useMemo(() => ({ locale, setLocale, theme, setTheme }), [locale, setLocale, theme, setTheme]);
  return (
    <PreferencesContext value={value}>
      <IntlProvider locale={locale} messages={MESSAGES[locale]} timeZone={timeZone}>
        {children}
      </IntlProvider>
    </PreferencesContext>
  );
}

export function usePreferences(): Preferences {
  const value = useContext(PreferencesContext);
  if (!value) throw new Error("usePreferences must be used inside <PreferencesProvider>");
  return value;
}
