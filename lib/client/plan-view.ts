/**
 * DAG mode in the run's timeline: each `plan` event is a plan entry (one per round), and each
 * `step_progress` updates its step. Steps not started yet are `pending`.
 */
import type { Plan, PlanStep, StepProgress, StepProgressStatus } from "@/lib/protocol/run-events";
import type { TimelineEntry } from "./run-view";

export interface PlanStepView extends PlanStep {
  status: "pending" | StepProgressStatus;
  /** The model the step runs on, once it started. */
  model: string | null;
  result: string | null;
  /** When it started (ms since epoch), for the live timer. */
  startedAt: number | null;
  durationMs: number | null;
}

export type PlanEntry = Extract<TimelineEntry, { kind: "plan" }>;

export function applyPlan(timeline: TimelineEntry[], plan: Plan): TimelineEntry[] {
  const key = `plan:${plan.round}`;
  if (timeline.some((entry) => entry.key === key)) return timeline;
  const steps = plan.steps.map(
    (step): PlanStepView => ({
      ...step,
      status: "pending",
      model: null,
      result: null,
      startedAt: null,
      durationMs: null,
    }),
  );
  return [
    ...timeline,
    {
      kind: "plan",
      key,
      round: plan.round,
      steps,
      ...(plan.verdict ? { verdict: plan.verdict } : {}),
      ...(plan.structured ? { structured: plan.structured } : {}),
    },
  ];
}

export function applyStepProgress(timeline: TimelineEntry[], progress: StepProgress): TimelineEntry[] {
  return timeline.map((entry) => {
    if (entry.kind !== "plan" || !entry.steps.some((step) => step.id === progress.stepId)) return entry;
    const steps = entry.steps.map((step) =>
      step.id !== progress.stepId
        ? step
        : {
            ...step,
            status: progress.status,
            model: progress.model || step.model,
            result: progress.result ?? step.result,
            startedAt: progress.status === "running" ? progress.at : step.startedAt,
            durationMs: progress.durationMs ?? step.durationMs,
          },
    );
    return { ...entry, steps };
  });
}
