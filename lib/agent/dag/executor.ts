import type { PlanStep } from "@/lib/protocol/run-events";
import type { StepRun } from "./step-runner";

/**
 * The executor's schedule: every step whose dependencies are done starts, up to `maxConcurrency`
 * at once; a step whose dependency failed or was skipped is skipped without running, the others go
 * on. `runStep` settles every step itself (done or failed); only Stop rejects, and then at once.
 */
export async function executePlan(
  steps: PlanStep[],
  {
    maxConcurrency,
    signal,
    canStart,
    runStep,
    skip,
  }: {
    maxConcurrency: number;
    signal: AbortSignal;
    /** False while the run's budget is all reserved by running steps: the next step waits for them. */
    canStart: () => boolean;
    runStep: (step: PlanStep, dependencies: StepRun[]) => Promise<StepRun>;
    skip: (step: PlanStep) => StepRun;
  },
): Promise<StepRun[]> {
  const runs = new Map<string, StepRun>();
  let waiting = [...steps];
  const running = new Map<string, Promise<void>>();
  const settled = (id: string) => runs.get(id)?.status;

  while (waiting.length > 0 || running.size > 0) {
    signal.throwIfAborted();
    const before = waiting.length;
    for (const step of waiting) {
      if (step.dependencies.some((id) => settled(id) === "failed" || settled(id) === "skipped")) {
        runs.set(step.id, skip(step));
      }
    }
    waiting = waiting.filter((step) => !runs.has(step.id));
    for (const step of waiting) {
      if (running.size >= maxConcurrency || (running.size > 0 && !canStart())) break;
      if (!step.dependencies.every((id) => settled(id) === "done")) continue;
      const dependencies = step.dependencies.map((id) => runs.get(id) as StepRun);
      running.set(
        step.id,
        runStep(step, dependencies).then((run) => {
          runs.set(step.id, run);
          running.delete(step.id);
        }),
      );
    }
    waiting = waiting.filter((step) => !running.has(step.id));
    if (running.size === 0) {
      // A checked plan has no cycle: with nothing running, each pass skips or starts a step.
      if (waiting.length === before) throw new Error(`steps ${waiting.map((step) => step.id)} can never start`);
      continue;
    }
    await Promise.race(running.values());
  }
  return steps.map((step) => runs.get(step.id) as StepRun);
}
