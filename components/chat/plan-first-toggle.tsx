import { ListChecks } from "lucide-react";
import { useTranslations } from "use-intl";
import { ModeToggle } from "./mode-toggle";

/** "Plan first": the next turns are planned as steps and researched in parallel (DAG mode). */
export function PlanFirstToggle({ on, onChange }: { on: boolean; onChange: (on: boolean) => void }) {
  const t = useTranslations("composer");
  return (
    <ModeToggle
      icon={ListChecks}
      label={t("planFirstLabel")}
      title={t("planFirstTitle")}
      testId="plan-first-toggle"
      on={on}
      onChange={onChange}
    />
  );
}
