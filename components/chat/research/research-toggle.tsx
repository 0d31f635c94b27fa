import { Telescope } from "lucide-react";
import { useTranslations } from "use-intl";
import { ModeToggle } from "../mode-toggle";

/** "Research": the next turn is a research run (docs/research.md, "Research mode"): an outline first, then a report. */
export function ResearchToggle({ on, onChange }: { on: boolean; onChange: (on: boolean) => void }) {
  const t = useTranslations("research");
  return (
    <ModeToggle
      icon={Telescope}
      label={t("modeLabel")}
      title={t("modeTitle")}
      testId="research-toggle"
      on={on}
      onChange={onChange}
    />
  );
}
