import { useFormatter, useTranslations } from "use-intl";
import { Section } from "@/components/shell/page-frame";
import type { Setting } from "@/lib/client/types";
import { SourceBadge } from "./source-badge";

/** The agent's and tools' limits: environment-only, shown read-only with the variable that sets each. */
export function LimitsTable({ limits }: { limits: Record<string, Setting<number>> }) {
  const t = useTranslations("settings");
  const format = useFormatter();
  return (
    <Section title={t("limitsSection")} description={t("limitsDescription")} testId="settings-limits">
      <div className="overflow-x-auto rounded-xl border border-border">
        <table className="w-full text-sm">
          <thead className="bg-muted/60 text-left text-xs text-muted-foreground">
            <tr>
              <th scope="col" className="px-4 py-2 font-medium">
                {t("limitName")}
              </th>
              <th scope="col" className="px-4 py-2 text-right font-medium">
                {t("limitValue")}
              </th>
              <th scope="col" className="px-4 py-2 font-medium">
                {t("limitSource")}
              </th>
            </tr>
          </thead>
          <tbody className="divide-y divide-border">
            {Object.entries(limits).map(([name, setting]) => (
              <tr key={name} data-testid="limit-row" data-name={name}>
                <th scope="row" className="px-4 py-2 text-left font-mono text-[0.8125rem] font-normal">
                  {name}
                </th>
                <td className="px-4 py-2 text-right tabular-nums">{format.number(setting.value)}</td>
                <td className="px-4 py-2">
                  <SourceBadge source={setting.source} envName={name} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </Section>
  );
}
