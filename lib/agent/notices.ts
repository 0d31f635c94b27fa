import { type PromptLanguage, prompt } from "@/lib/prompts";
import type { NoticeAbout, PlanProblem } from "@/lib/protocol/run-events";

/**
 * The engine's notices in the run's language, as whole sentences (prompts/*.json): what was cut to
 * fit and how much was kept, which tool or research budget is used, that the iteration limit was
 * reached, why a DAG run answers without a plan, which MCP server could not be reached, how many
 * memories the model was given, how many research sources a quota left out of the library. The trail
 * words the same data in the reader's language (components/chat/run/timeline-notes.tsx).
 */
const CUT_PROMPTS = {
  question: "notice_cut_question",
  follow_up: "notice_cut_follow_up",
  tool_result: "notice_cut_tool_result",
  research: "notice_cut_research",
} as const;

/** Whose request a structured call's cut names ("The planner's request was cut…"). */
const REQUEST_PROMPTS = {
  planner: "dag_input_planner",
  analyzer: "dag_input_analyzer",
  tool_selection: "tool_selection_input",
  brief: "research_input_brief",
} as const;

/** Which quota left a research run's sources out of the library. */
const NOT_KEPT_PROMPTS = {
  conversation_files: "notice_sources_not_kept_conversation_files",
  project_files: "notice_sources_not_kept_project_files",
  user_storage: "notice_sources_not_kept_user_storage",
} as const;

/** Why a plan cannot be used, as a clause: told to the planner when it is asked again, and in the fallback notice. */
export function describeProblem(language: PromptLanguage, problem: PlanProblem): string {
  switch (problem.kind) {
    case "cycle":
      return prompt(language, "dag_problem_cycle", { steps: problem.steps.join(", ") });
    case "single":
      return prompt(language, "dag_problem_single");
    case "empty":
      return prompt(language, "dag_problem_empty");
  }
}

export function noticeText(language: PromptLanguage, about: NoticeAbout): string {
  const count = (value: number) => new Intl.NumberFormat(language).format(value);
  switch (about.code) {
    case "cut": {
      const figures = { kept: count(about.kept), total: count(about.total) };
      if (about.what === "request") {
        return prompt(language, "request_cut", { ...figures, what: prompt(language, REQUEST_PROMPTS[about.call]) });
      }
      return prompt(language, CUT_PROMPTS[about.what], { ...figures, tool: about.tool ?? "" });
    }
    case "tool_budget":
      return about.budget === "context"
        ? prompt(language, "notice_budget_context", { limit: count(about.limit), chars: count(about.chars) })
        : prompt(language, "notice_budget_rounds", { rounds: count(about.rounds) });
    case "research_budget":
      return about.budget === "sources"
        ? prompt(language, "research_budget_sources", { max: count(about.max) })
        : prompt(language, "research_budget_time", { minutes: count(about.minutes) });
    case "iteration_limit":
      return prompt(language, "notice_iteration_limit", { iterations: count(about.iterations) });
    case "dag_fallback":
      return prompt(language, "dag_fallback", { problem: describeProblem(language, about.problem) });
    case "mcp_unavailable":
      return prompt(language, "mcp_unavailable", { server: about.server });
    case "memories":
      return prompt(language, "notice_memories", { included: count(about.included), total: count(about.total) });
    case "sources_not_kept":
      return prompt(language, NOT_KEPT_PROMPTS[about.quota], {
        kept: count(about.kept),
        notKept: count(about.notKept),
      });
  }
}
