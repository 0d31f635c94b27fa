"use client";

import { CheckCircle2, Circle, CircleAlert, Loader2, PenLine, XCircle } from "lucide-react";
import { useEffect, useState } from "react";
import { useTranslations } from "use-intl";
import { cx } from "@/lib/client/cx";
import {
  type ResearchPhase,
  type ResearchProgress,
  type ResearchSectionStatus,
  researchPhaseSchema,
} from "@/lib/protocol/research";
import { useFormatElapsed } from "../run/use-elapsed";

const PHASES = researchPhaseSchema.options;

const SECTION_ICONS: Record<ResearchSectionStatus, { Icon: typeof Circle; className: string }> = {
  pending: { Icon: Circle, className: "text-muted-foreground" },
  gathering: { Icon: Loader2, className: "animate-spin text-primary" },
  gathered: { Icon: CheckCircle2, className: "text-sky-600 dark:text-sky-400" },
  failed: { Icon: XCircle, className: "text-red-600 dark:text-red-400" },
  writing: { Icon: PenLine, className: "text-primary" },
  written: { Icon: CheckCircle2, className: "text-emerald-600 dark:text-emerald-400" },
};

const TICK_MS = 1000;

/**
 * The time the card shows: the run's own count at its last progress event, going on from there
 * while the run is live and its time budget is not used up (never past the budget).
 */
function useShownElapsed(progress: ResearchProgress, live: boolean): number {
  const ticking = live && progress.phase !== "brief" && !progress.budgetsReached.includes("time");
  const [received, setReceived] = useState<{ progress: ResearchProgress; at: number } | null>(null);
  const [now, setNow] = useState(0);
  useEffect(() => {
    if (!ticking) return;
    const at = Date.now();
    setReceived({ progress, at });
    setNow(at);
    const timer = setInterval(() => setNow(Date.now()), TICK_MS);
    return () => clearInterval(timer);
  }, [ticking, progress]);
  const extra = ticking && received?.progress === progress ? Math.max(0, now - received.at) : 0;
  return Math.min(progress.elapsedMs + extra, Math.max(progress.maxMs, progress.elapsedMs));
}

function PhaseSteps({ phase, live }: { phase: ResearchPhase; live: boolean }) {
  const t = useTranslations("research.progress");
  const current = PHASES.indexOf(phase);
  return (
    <ol
      className="flex flex-wrap items-center gap-x-1.5 gap-y-1 text-xs"
      aria-label={t("phaseNow", { phase: t(`phase.${phase}`) })}
    >
      {PHASES.map((name, index) => (
        <li
          key={name}
          data-testid="research-phase"
          data-phase={name}
          aria-current={index === current ? "step" : undefined}
          className={cx(
            "flex items-center gap-1.5 rounded-full px-2 py-0.5",
            index === current
              ? "bg-primary/10 font-medium text-primary dark:bg-primary/20"
              : index < current
                ? "text-foreground"
                : "text-muted-foreground",
          )}
        >
          {index < current ? <CheckCircle2 aria-hidden className="size-3.5" /> : null}
          {index === current && live ? <Loader2 aria-hidden className="size-3.5 motion-safe:animate-spin" /> : null}
          {t(`phase.${name}`)}
        </li>
      ))}
    </ol>
  );
}

/**
 * A research run's progress (its last `research` event): the phase, each section's state, the
 * sections written, the sources read and the time, each of its budget, and the budgets used up.
 * Stop is the composer's, as for every run.
 */
export function ProgressCard({ progress, live }: { progress: ResearchProgress; live: boolean }) {
  const t = useTranslations("research.progress");
  const format = useFormatElapsed();
  const elapsed = useShownElapsed(progress, live);
  return (
    <section
      data-testid="research-progress"
      data-phase={progress.phase}
      aria-label={t("label")}
      className="mb-3 rounded-xl border border-border bg-muted/30 p-3"
    >
      <div className="flex flex-wrap items-center justify-between gap-2">
        <h3 className="text-xs font-medium uppercase tracking-wide text-muted-foreground">{t("label")}</h3>
        <PhaseSteps phase={progress.phase} live={live} />
      </div>
      {progress.phase === "brief" ? null : (
        <ul className="mt-2 grid gap-x-4 gap-y-1 text-sm sm:grid-cols-3">
          <Fact testId="research-sections-done" text={t("sections", { done: progress.done, total: progress.total })} />
          <Fact
            testId="research-sources-read"
            text={t("sources", { read: progress.sourcesRead, max: progress.maxSources })}
            full={progress.budgetsReached.includes("sources")}
          />
          <Fact
            testId="research-time"
            text={t("time", { elapsed: format(elapsed), max: format(progress.maxMs) })}
            full={progress.budgetsReached.includes("time")}
          />
        </ul>
      )}
      {progress.budgetsReached.length > 0 ? (
        <ul className="mt-2 flex flex-col gap-1">
          {progress.budgetsReached.map((budget) => (
            <li
              key={budget}
              data-testid="research-budget-reached"
              data-budget={budget}
              className="flex items-start gap-1.5 rounded-lg bg-amber-50 px-2.5 py-1.5 text-xs text-amber-900 dark:bg-amber-500/10 dark:text-amber-200"
            >
              <CircleAlert aria-hidden className="mt-px size-3.5 shrink-0" />
              {t(`budget.${budget}`)}
            </li>
          ))}
        </ul>
      ) : null}
      {progress.sections.length > 0 ? (
        <ol className="mt-2 flex flex-col gap-1">
          {progress.sections.map((section) => {
            const { Icon, className } = SECTION_ICONS[section.status];
            return (
              <li
                key={section.id}
                data-testid="research-section"
                data-section-id={section.id}
                data-status={section.status}
                className="flex items-start gap-2 rounded-lg border border-border bg-card px-2.5 py-1.5 text-sm"
              >
                <Icon
                  aria-hidden
                  className={cx("mt-0.5 size-4 shrink-0", live || section.status !== "gathering" ? className : "")}
                />
                <span className="min-w-0 flex-1">
                  <span className="break-words">{section.title}</span>
                  <span className="mt-0.5 flex flex-wrap gap-x-3 text-xs text-muted-foreground">
                    <span>{t(`status.${section.status}`)}</span>
                    <span>{t("sectionSources", { count: section.sources })}</span>
                  </span>
                  {section.status === "failed" && section.reason ? (
                    <span className="mt-0.5 block text-xs text-red-700 dark:text-red-300">
                      {t("failedReason", { reason: section.reason })}
                    </span>
                  ) : null}
                </span>
              </li>
            );
          })}
        </ol>
      ) : null}
    </section>
  );
}

function Fact({ text, testId, full = false }: { text: string; testId: string; full?: boolean }) {
  return (
    <li
      data-testid={testId}
      data-full={full || undefined}
      className={cx(full && "font-medium text-amber-800 dark:text-amber-300")}
    >
      {text}
    </li>
  );
}
