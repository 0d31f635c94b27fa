import { type PromptLanguage, prompt } from "@/lib/prompts";
import type { NoticeAbout } from "@/lib/protocol/run-events";

/**
 * The engine's notices in the run's language, as whole sentences (prompts/*.json): what was cut to
 * fit and how much was kept, which tool budget is used, that the iteration limit was reached. The
 * trail words the same data in the reader's language (components/chat/run/timeline-notes.tsx).
 */
const CUT_PROMPTS = {
  question: "notice_cut_question",
  follow_up: "notice_cut_follow_up",
  tool_result: "notice_cut_tool_result",
  research: "notice_cut_research",
} as const;

export function noticeText(language: PromptLanguage, about: NoticeAbout): string {
  const count = (value: number) => new Intl.NumberFormat(language).format(value);
  switch (about.code) {
    case "cut": {
      const vars = { kept: count(about.kept), total: count(about.total), tool: about.tool ?? "" };
      return prompt(language, CUT_PROMPTS[about.what], vars);
    }
    case "tool_budget":
      return about.budget === "context"
        ? prompt(language, "notice_budget_context", { limit: count(about.limit), chars: count(about.chars) })
        : prompt(language, "notice_budget_rounds", { rounds: count(about.rounds) });
    case "iteration_limit":
      return prompt(language, "notice_iteration_limit", { iterations: count(about.iterations) });
  }
}
