"use client";

import { usePathname } from "next/navigation";
import { useTranslations } from "use-intl";
import { focusComposerOrMain, MAIN_ID } from "./focus-targets";

/** The first stop of the Tab key: past the sidebar, straight to the composer (or the page). */
export function SkipLink() {
  const t = useTranslations("shell");
  const pathname = usePathname();
  const chat = pathname === "/" || pathname.startsWith("/c/");
  return (
    <a
      href={`#${MAIN_ID}`}
      data-testid="skip-link"
      onClick={(event) => {
        event.preventDefault();
        focusComposerOrMain();
      }}
      className="sr-only rounded-lg bg-foreground px-3 py-2 text-sm font-medium text-background focus:not-sr-only focus:fixed focus:top-2 focus:left-2 focus:z-50 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-ring"
    >
      {chat ? t("skipToChat") : t("skipToContent")}
    </a>
  );
}
