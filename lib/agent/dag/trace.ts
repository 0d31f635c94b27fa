import { type PromptLanguage, prompt } from "@/lib/prompts";
import type { StepRun } from "./step-runner";

/** The steps' results as the models read them: each under its id and task, cut to `maxChars`. */

function cut(text: string, maxChars: number): string {
  return text.length <= maxChars ? text : `${text.slice(0, Math.max(0, maxChars - 1))}…`;
}

export function formatResults(runs: StepRun[], language: PromptLanguage, maxChars: number): string {
  return runs
    .map((run) =>
      prompt(language, "dag_step_result", {
        id: run.step.id,
        task: run.step.task,
        result: cut(
          run.status === "failed" ? prompt(language, "dag_step_failed", { reason: run.result }) : run.result,
          maxChars,
        ),
      }),
    )
    .join("\n\n");
}
