import type { ReactElement } from "react";
import { renderToString } from "react-dom/server";
import { IntlProvider } from "use-intl";
import en from "@/messages/en.json";
import ja from "@/messages/ja.json";

const MESSAGES = { en, ja };

/** A component's HTML as the server would draw it, in English unless told (no window: no browser APIs). */
export function renderHtml(element: ReactElement, locale: keyof typeof MESSAGES = "en"): string {
  return renderToString(
    <IntlProvider locale={locale} messages={MESSAGES[locale]} timeZone="UTC">
      {element}
    </IntlProvider>,
  );
}
