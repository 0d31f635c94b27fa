import { CheckCircle2, Circle, Loader2, MinusCircle, XCircle } from "lucide-react";
import { useTranslations } from "use-intl";
import { cx } from "@/lib/client/cx";
import type { PlanEntry, PlanStepView } from "@/lib/client/plan-view";
import type { TimelineEntry } from "@/lib/client/run-view";
import { StructuredVia } from "./timeline-notes";
import { ToolCard } from "./tool-card";
import { useElapsed, useFormatElapsed } from "./use-elapsed";

type ToolEntry = Extract<TimelineEntry, { kind: "tool" }>;

const ICONS = {
  pending: { Icon: Circle, className: "text-muted-foreground" },
  running: { Icon: Loader2, className: "animate-spin text-primary" },
  done: { Icon: CheckCircle2, className: "text-emerald-600 dark:text-emerald-400" },
  failed: { Icon: XCircle, className: "text-red-600 dark:text-red-400" },
  skipped: { Icon: MinusCircle, className: "text-muted-foreground" },
} as const;

function PlanStepItem({ step, tools, runEnded }: { step: PlanStepView; tools: ToolEntry[]; runEnded: boolean }) {
  const t = useTranslations("plan");
  const format = useFormatElapsed();
  const running = step.status === "running" && !runEnded;
  const elapsed = useElapsed(step.startedAt, running);
  const time = step.durationMs ?? (running ? elapsed : null);
  const { Icon, className } = ICONS[step.status];
  return (
    <li data-testid="plan-step" data-step-id={step.id} data-status={step.status}>
      <details className="group rounded-lg border border-border bg-card">
        <summary className="flex cursor-pointer list-none items-start gap-2 px-3 py-2 text-sm focus-visible:outline-2 focus-visible:outline-ring">
          <Icon aria-hidden className={cx("mt-0.5 size-4 shrink-0", className)} />
          <span className="sr-only">{t(`status.${step.status}`)}: </span>
          <span className="min-w-0 flex-1">
            <span className="break-words">{step.task}</span>
            <span className="mt-0.5 flex flex-wrap gap-x-3 text-xs text-muted-foreground">
              <span className="font-mono">{step.id}</span>
              {step.dependencies.length > 0 ? (
                <span>{t("dependsOn", { steps: step.dependencies.join(", ") })}</span>
              ) : null}
              {step.model ? <span data-testid="plan-step-model">{step.model}</span> : null}
              {time !== null ? <span>{format(time)}</span> : null}
            </span>
          </span>
        </summary>
        <div className="flex flex-col gap-2 border-t border-border px-3 py-2">
          {tools.length > 0 ? (
            <section aria-label={t("stepTools", { id: step.id })} className="flex flex-col gap-2">
              {tools.map((tool) => (
                <ToolCard key={tool.key} entry={tool} runEnded={runEnded} />
              ))}
            </section>
          ) : null}
          {step.result ? (
            <p className="whitespace-pre-wrap break-words text-sm text-muted-foreground">{step.result}</p>
          ) : null}
        </div>
      </details>
    </li>
  );
}

/** A DAG plan round: its steps as a checklist with dependencies, status, model and time; each opens on its tool cards. */
export function PlanCard({ entry, tools, runEnded }: { entry: PlanEntry; tools: ToolEntry[]; runEnded: boolean }) {
  const t = useTranslations("plan");
  const label = t(entry.round === 1 ? "label" : "replan", { round: entry.round });
  return (
    <section data-testid="plan-card" aria-label={label} className="rounded-xl border border-border bg-muted/30 p-2">
      <h3 className="px-1 pb-2 text-xs font-medium uppercase tracking-wide text-muted-foreground">{label}</h3>
      {entry.structured ? (
        <p className="px-1 pb-2 text-xs">
          <StructuredVia record={entry.structured} />
        </p>
      ) : null}
      {entry.verdict ? (
        <p data-testid="plan-verdict" className="px-1 pb-2 text-xs text-muted-foreground">
          {t(entry.verdict.achieved ? "verdictAchieved" : "verdictNotAchieved", {
            confidence: entry.verdict.confidence,
            reasoning: entry.verdict.reasoning,
          })}
        </p>
      ) : null}
      <ol className="flex flex-col gap-1.5">
        {entry.steps.map((step) => (
          <PlanStepItem
            key={step.id}
            step={step}
            tools={tools.filter((tool) => tool.stepId === step.id)}
            runEnded={runEnded}
          />
        ))}
      </ol>
    </section>
  );
}
