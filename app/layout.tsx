import type { Metadata, Viewport } from "next";
import { cookies, headers } from "next/headers";
import type { ReactNode } from "react";
import { isLocale, LOCALE_COOKIE, localeFromAcceptLanguage } from "@/components/preferences/locales";
import { PreferencesProvider } from "@/components/preferences/preferences";
import { THEME_SCRIPT } from "@/components/preferences/theme-script";
import { AppShell } from "@/components/shell/app-shell";
import "./globals.css";

import en from "@/messages/en.json";
import ja from "@/messages/ja.json";

/** The language the page is first drawn in: the one picked before (cookie), else the browser's. */
async function requestLocale() {
  const chosen = (await cookies()).get(LOCALE_COOKIE)?.value;
  return isLocale(chosen) ? chosen : localeFromAcceptLanguage((await headers()).get("accept-language"));
}

export async function generateMetadata(): Promise<Metadata> {
  const messages = { en, ja }[await requestLocale()];
  return { title: "ollama-web", description: messages.meta.description };
}

export const viewport: Viewport = {
  width: "device-width",
  initialScale: 1,
  interactiveWidget: "resizes-content",
  themeColor: [
    { media: "(prefers-color-scheme: light)", color: "#ffffff" },
    { media: "(prefers-color-scheme: dark)", color: "#212121" },
  ],
};

export default async function RootLayout({ children }: { children: ReactNode }) {
  const locale = await requestLocale();
  return (
    // The theme script sets the `dark` class before React hydrates; React must not undo it.
    <html lang={locale} suppressHydrationWarning>
      <head>
        {/* biome-ignore lint/security/noDangerouslySetInnerHtml: a constant script, no user input */}
        <script dangerouslySetInnerHTML={{ __html: THEME_SCRIPT }} />
      </head>
      <body>
        <PreferencesProvider initialLocale={locale}>
          <AppShell>{children}</AppShell>
        </PreferencesProvider>
      </body>
    </html>
  );
}
