import { type PromptLanguage, prompt } from "@/lib/prompts";
import type { NoticeAbout } from "@/lib/protocol/run-events";

/**
 * The engine's notices in the run's language, as whole sentences (prompts/*.json): what was cut to
 * fit and how much was kept, which tool budget is used, that the iteration limit was reached. The
 * trail words the same data in the reader's language (components/chat/run/timeline-notes.tsx).
 */
export function noticeText(language: PromptLanguage, about: NoticeAbout): string {
  const count = (value: number) => new Intl.NumberFormat(language).format(value);
  switch (about.code) {
    case "cut": {
      const vars = { kept: count(about.kept), total: count(about.total), tool: about.tool ?? "" };
      if (about.what === "tool_result") return prompt(language, "notice_cut_tool_result", vars);
      return prompt(language, about.what === "question" ? "notice_cut_question" : "notice_cut_follow_up", vars);
    }
    case "tool_budget":
      return about.budget === "context"
        ? prompt(language, "notice_budget_context", { limit: count(about.limit), chars: count(about.chars) })
        : prompt(language, "notice_budget_rounds", { rounds: count(about.rounds) });
    case "iteration_limit":
      return prompt(language, "notice_iteration_limit", { iterations: count(about.iterations) });
  }
}
