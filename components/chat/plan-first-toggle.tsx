import { ListChecks } from "lucide-react";
import { useTranslations } from "use-intl";
import { cx } from "@/lib/client/cx";

/** "Plan first": the next turns are planned as steps and researched in parallel (DAG mode). */
export function PlanFirstToggle({ on, onChange }: { on: boolean; onChange: (on: boolean) => void }) {
  const t = useTranslations("composer");
  return (
    <button
      type="button"
      data-testid="plan-first-toggle"
      aria-pressed={on}
      title={t("planFirstTitle")}
      onClick={() => onChange(!on)}
      className={cx(
        "flex h-9 shrink-0 items-center gap-1.5 rounded-full px-2.5 text-sm transition-colors",
        "focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-ring",
        on
          ? "bg-primary/10 text-primary dark:bg-primary/20"
          : "text-muted-foreground hover:bg-muted hover:text-foreground",
      )}
    >
      <ListChecks aria-hidden className="size-4.5" />
      <span className="max-[420px]:sr-only">{t("planFirstLabel")}</span>
    </button>
  );
}
