import type { ReactElement } from "react";
import { renderToString } from "react-dom/server";
import { IntlProvider } from "use-intl";
import en from "@/messages/en.json";

/** A component's HTML as the server would draw it, in English (no window: no browser APIs). */
export function renderHtml(element: ReactElement): string {
  return renderToString(
    <IntlProvider locale="en" messages={en} timeZone="UTC">
      {element}
    </IntlProvider>,
  );
}
