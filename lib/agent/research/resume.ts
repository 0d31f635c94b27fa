import { type PromptLanguage, prompt } from "@/lib/prompts";
import type { ResearchBrief, ResearchProgress } from "@/lib/protocol/research";

/**
 * The sections an interrupted research run finished (docs/research.md, "Resuming"): those its last
 * progress says were `written`, each cut from the answer it stored — from its heading to the next
 * section's heading (or the report's references, or the end). The answer holds the sections as they
 * streamed, in the brief's order, or the whole report when the run was verifying. A section whose
 * heading is not found in the answer is not kept: it is researched again.
 */
export function finishedSections(
  brief: ResearchBrief,
  answer: string,
  progress: ResearchProgress | null,
  language: PromptLanguage,
): Map<string, string> {
  const written = new Set(
    (progress?.sections ?? []).filter((section) => section.status === "written").map((section) => section.id),
  );
  const heading = (title: string) => `## ${title}\n\n`;
  const references = answer.indexOf(heading(prompt(language, "research_references_heading")));
  const end = references === -1 ? answer.length : references;
  const kept = new Map<string, string>();
  let from = 0;
  brief.sections.forEach((section, index) => {
    const start = answer.indexOf(heading(section.title), from);
    if (start === -1 || start >= end) return;
    const next = brief.sections
      .slice(index + 1)
      .map((later) => answer.indexOf(heading(later.title), start + 1))
      .find((at) => at !== -1 && at < end);
    const stop = next ?? end;
    if (written.has(section.id)) kept.set(section.id, answer.slice(start, stop));
    from = stop;
  });
  return kept;
}
