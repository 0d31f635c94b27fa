import { Telescope } from "lucide-react";
import { useTranslations } from "use-intl";
import { cx } from "@/lib/client/cx";

/** "Research": the next turn is a research run (docs/research.md, "Research mode"): an outline first, then a report. */
export function ResearchToggle({ on, onChange }: { on: boolean; onChange: (on: boolean) => void }) {
  const t = useTranslations("research");
  return (
    <button
      type="button"
      data-testid="research-toggle"
      aria-pressed={on}
      title={t("modeTitle")}
      onClick={() => onChange(!on)}
      className={cx(
        "flex h-9 shrink-0 items-center gap-1.5 rounded-full px-2.5 text-sm transition-colors",
        "focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-ring",
        on
          ? "bg-primary/10 text-primary dark:bg-primary/20"
          : "text-muted-foreground hover:bg-muted hover:text-foreground",
      )}
    >
      <Telescope aria-hidden className="size-4.5" />
      <span className="max-[420px]:sr-only">{t("modeLabel")}</span>
    </button>
  );
}
