import { useTranslations } from "use-intl";
import { cx } from "@/lib/client/cx";
import type { SettingSource } from "@/lib/client/types";

/** Where a value comes from: the environment (read-only, named), the settings page, or the default. */
export function SourceBadge({ source, envName }: { source: SettingSource; envName?: string }) {
  const t = useTranslations("settings");
  return (
    <span
      data-testid="setting-source"
      data-source={source}
      className={cx(
        "inline-flex items-center rounded-full px-2 py-0.5 text-xs font-medium",
        source === "env"
          ? "bg-amber-50 text-amber-900 dark:bg-amber-400/10 dark:text-amber-200"
          : source === "settings"
            ? "bg-sky-50 text-sky-900 dark:bg-sky-400/10 dark:text-sky-200"
            : "bg-muted text-muted-foreground",
      )}
    >
      {source === "env" && envName ? t("sourceEnv", { name: envName }) : t(`source.${source}`)}
    </span>
  );
}
