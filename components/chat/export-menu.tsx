"use client";

import { Download, FileJson, FileText, Paperclip } from "lucide-react";
import { useTranslations } from "use-intl";
import { MENU_BUTTON, MENU_PANEL, Menu } from "@/components/ui/menu";
import { exportUrl } from "@/lib/client/api";
import { cx } from "@/lib/client/cx";

const ITEM = cx(
  "flex items-start gap-2.5 rounded-lg px-2.5 py-2 text-sm hover:bg-muted",
  "focus-visible:outline-2 focus-visible:outline-offset-[-2px] focus-visible:outline-ring",
);

/**
 * "Export" in the chat header: the conversation as Markdown to read, or as JSON to import elsewhere,
 * with or without its files. Each entry is a download link (the server names the file). While an
 * answer is being written the button is off: the server exports a conversation at rest.
 */
export function ExportMenu({ conversationId, running }: { conversationId: string; running: boolean }) {
  const t = useTranslations("export");
  const entries = [
    { id: "md", icon: FileText, href: exportUrl(conversationId, "md"), label: t("markdown"), hint: t("markdownHint") },
    { id: "json", icon: FileJson, href: exportUrl(conversationId, "json"), label: t("json"), hint: t("jsonHint") },
    {
      id: "json-files",
      icon: Paperclip,
      href: exportUrl(conversationId, "json", true),
      label: t("jsonFiles"),
      hint: t("jsonFilesHint"),
    },
  ];

  return (
    <Menu
      className="relative"
      disabled={running}
      button={(props) => (
        <button
          {...props}
          data-testid="export-button"
          aria-label={t("button")}
          title={running ? t("busy") : t("button")}
          className={MENU_BUTTON}
        >
          <Download aria-hidden className="size-4" />
          <span className="max-sm:sr-only">{t("short")}</span>
        </button>
      )}
    >
      {/* Below sm the header's buttons sit anywhere in its width: the menu spans the screen instead. */}
      {(panel, close) => (
        <nav
          {...panel}
          aria-label={t("button")}
          data-testid="export-panel"
          className={cx(
            MENU_PANEL,
            "z-30 p-1.5 max-sm:fixed max-sm:inset-x-3 max-sm:top-14 sm:absolute sm:top-full sm:right-0 sm:mt-1.5 sm:w-80",
          )}
        >
          <ul className="flex flex-col">
            {entries.map(({ id, icon: Icon, href, label, hint }) => (
              <li key={id}>
                <a href={href} download data-testid={`export-${id}`} className={ITEM} onClick={close}>
                  <Icon aria-hidden className="mt-0.5 size-4 shrink-0 text-muted-foreground" />
                  <span className="min-w-0">
                    <span className="block font-medium">{label}</span>
                    <span className="block text-xs text-muted-foreground">{hint}</span>
                  </span>
                </a>
              </li>
            ))}
          </ul>
        </nav>
      )}
    </Menu>
  );
}
