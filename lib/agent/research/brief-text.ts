import { type PromptLanguage, prompt } from "@/lib/prompts";
import { briefSectionsText, type ResearchBrief } from "@/lib/protocol/research";

/**
 * A brief as Markdown text (docs/research.md, "Research mode"): the question stored for a research
 * run started from it, and the brief run's stored answer, so history, export and search read it.
 */
export function briefText(brief: ResearchBrief, language: PromptLanguage): string {
  return prompt(language, "research_brief_text", {
    goal: brief.goal,
    scope: brief.scope || prompt(language, "research_scope_open"),
    sections: briefSectionsText(brief),
  });
}
