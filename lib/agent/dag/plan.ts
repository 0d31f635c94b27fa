import type { ModelHint, PlanProblem, PlanStep } from "@/lib/protocol/run-events";

/**
 * A planner's raw steps made into a plan the executor can run: at most `maxSteps` steps, ids unique
 * within the run (a duplicate, or an id an earlier round used, is renamed `<id>_2`, `<id>_3`, …),
 * dependencies on unknown steps dropped, unknown tools and model roles forgotten. A plan with no
 * step or with a cycle is refused with the problem, so the planner can be asked again.
 */

export type PlanCheck = { ok: true; steps: PlanStep[] } | { ok: false; problem: PlanProblem };

const MAX_ID_CHARS = 40;
const MAX_TASK_CHARS = 2000;

function asText(value: unknown): string {
  return typeof value === "string" ? value.trim() : typeof value === "number" ? String(value) : "";
}

function modelHint(value: unknown): ModelHint {
  return value === "fast" || value === "reasoning" ? value : null;
}

/** The steps on a cycle (or waiting on one), or [] when every step can run in some order. */
export function findCycle(steps: PlanStep[]): string[] {
  const done = new Set<string>();
  let progressed = true;
  while (progressed) {
    progressed = false;
    for (const step of steps) {
      if (!done.has(step.id) && step.dependencies.every((id) => done.has(id))) {
        done.add(step.id);
        progressed = true;
      }
    }
  }
  return steps.filter((step) => !done.has(step.id)).map((step) => step.id);
}

export function checkPlan(
  raw: unknown,
  { maxSteps, toolNames, takenIds = new Set() }: { maxSteps: number; toolNames: string[]; takenIds?: Set<string> },
): PlanCheck {
  const entries = Array.isArray(raw) ? raw : [];
  const drafts = entries
    .filter((entry): entry is Record<string, unknown> => typeof entry === "object" && entry !== null)
    .map((entry) => ({ entry, task: asText(entry.task).slice(0, MAX_TASK_CHARS) }))
    .filter(({ task }) => task !== "")
    .slice(0, maxSteps);
  if (drafts.length === 0) return { ok: false, problem: { kind: "empty" } };

  const used = new Set(takenIds);
  /** The id each original id stands for in this round: its first occurrence's. */
  const renamed = new Map<string, string>();
  const ids = drafts.map(({ entry }, index) => {
    const original = asText(entry.id).slice(0, MAX_ID_CHARS) || `s${index + 1}`;
    let id = original;
    for (let n = 2; used.has(id); n++) id = `${original}_${n}`;
    used.add(id);
    if (!renamed.has(original)) renamed.set(original, id);
    return id;
  });
  const steps = drafts.map(({ entry, task }, index): PlanStep => {
    const dependencies = (Array.isArray(entry.dependencies) ? entry.dependencies : [])
      .map((dependency) => renamed.get(asText(dependency)))
      .filter((id): id is string => id !== undefined);
    const tool = asText(entry.tool_hint);
    return {
      id: ids[index] as string,
      task,
      dependencies: [...new Set(dependencies)],
      tool_hint: toolNames.includes(tool) ? tool : null,
      model_hint: modelHint(entry.model_hint),
    };
  });
  const cycle = findCycle(steps);
  return cycle.length > 0 ? { ok: false, problem: { kind: "cycle", steps: cycle } } : { ok: true, steps };
}
