/**
 * Research mode's protocol (docs/research.md, "Research mode"): the brief a research run proposes
 * (or the clarifying questions it asks instead), the `research` progress event of a run that
 * gathers and writes, and the `research` field of the chat body that starts one from an edited
 * brief. Framework-free: the engine, the chat route, the browser and the import share these shapes.
 */

import { z } from "./zod";

const count = z.number().int().min(0);

/** A brief has 3 to 8 sections; a request too vague for one gets at most 3 clarifying questions. */
export const RESEARCH_MIN_SECTIONS = 3;
export const RESEARCH_MAX_SECTIONS = 8;
export const RESEARCH_MAX_CLARIFYING = 3;
/** Questions one section must answer. */
export const RESEARCH_MAX_SECTION_QUESTIONS = 8;

/** One section of the report: what it is called and the questions its research must answer. */
export const researchSectionSchema = z.object({
  /** Unique within the brief: progress and the stored findings name the section by it. */
  id: z.string().trim().min(1).max(40),
  title: z.string().trim().min(1).max(200),
  questions: z.array(z.string().trim().min(1).max(500)).min(1).max(RESEARCH_MAX_SECTION_QUESTIONS),
});
export type ResearchSection = z.infer<typeof researchSectionSchema>;

/** The plan of a report: its goal, its scope (what it covers and leaves out) and its sections, in order. */
export const researchBriefSchema = z
  .object({
    goal: z.string().trim().min(1).max(2000),
    scope: z.string().trim().max(2000),
    sections: z
      .array(researchSectionSchema)
      .min(RESEARCH_MIN_SECTIONS, `a brief has ${RESEARCH_MIN_SECTIONS} to ${RESEARCH_MAX_SECTIONS} sections`)
      .max(RESEARCH_MAX_SECTIONS, `a brief has ${RESEARCH_MIN_SECTIONS} to ${RESEARCH_MAX_SECTIONS} sections`),
  })
  .superRefine((brief, context) => {
    const seen = new Set<string>();
    brief.sections.forEach((section, index) => {
      if (seen.has(section.id)) {
        context.addIssue({ code: "custom", path: ["sections", index, "id"], message: `"${section.id}" is used twice` });
      }
      seen.add(section.id);
    });
  });
export type ResearchBrief = z.infer<typeof researchBriefSchema>;

/**
 * `research_brief`: what a brief run ended with — the brief, shown as the outline card the user
 * edits and starts; or, for an ambiguous request, up to 3 short questions (the user answers them
 * in a normal message, and the next research turn makes the brief).
 */
export const researchBriefEventSchema = z.discriminatedUnion("kind", [
  z.object({ kind: z.literal("brief"), brief: researchBriefSchema }),
  z.object({
    kind: z.literal("questions"),
    questions: z.array(z.string().trim().min(1).max(500)).min(1).max(RESEARCH_MAX_CLARIFYING),
  }),
]);
export type ResearchBriefEvent = z.infer<typeof researchBriefEventSchema>;

export const researchPhaseSchema = z.enum(["brief", "gathering", "writing", "verifying"]);
export type ResearchPhase = z.infer<typeof researchPhaseSchema>;

/**
 * A section's state: `pending` (not started), `gathering` (its step runs), `gathered` (findings
 * ready), `failed` (its research failed or was cut off with nothing found: the report says so),
 * `writing`, `written`.
 */
export const researchSectionStatusSchema = z.enum(["pending", "gathering", "gathered", "failed", "writing", "written"]);
export type ResearchSectionStatus = z.infer<typeof researchSectionStatusSchema>;

/** What may stop a research run's gathering early: RESEARCH_MAX_SOURCES or RESEARCH_MAX_MINUTES. */
export const researchBudgetSchema = z.enum(["sources", "time"]);
export type ResearchBudget = z.infer<typeof researchBudgetSchema>;

/** `research`: where a research run is, sent whenever its phase or a section's state changes. */
export const researchProgressSchema = z.object({
  phase: researchPhaseSchema,
  sections: z.array(
    z.object({
      id: z.string(),
      title: z.string(),
      status: researchSectionStatusSchema,
      /** Sources this section's research read (a source two sections read counts in both). */
      sources: count,
      /** Why it failed, in the run's language. */
      reason: z.string().optional(),
    }),
  ),
  /** Sections written (a failed one too, once the report says it failed) of all. */
  done: count,
  total: count,
  /** Sources the run has read, of RESEARCH_MAX_SOURCES. */
  sourcesRead: count,
  maxSources: count,
  /** Since gathering began, of RESEARCH_MAX_MINUTES (ms). */
  elapsedMs: count,
  maxMs: count,
  /** The budgets used up: no new reads once `sources` is, gathering ended once `time` is. */
  budgetsReached: z.array(researchBudgetSchema),
});
export type ResearchProgress = z.infer<typeof researchProgressSchema>;

/**
 * The chat body's `research` field (with `mode: "research"`): start the research of this brief —
 * the brief the run under `parentId` proposed, as the user edited it. The run gathers, writes and
 * verifies; its question is stored as the brief in Markdown. See docs/api.md, `POST /api/chat`.
 */
export const researchStartSchema = z.strictObject({ brief: researchBriefSchema });
export type ResearchStart = z.infer<typeof researchStartSchema>;

/**
 * A brief's sections as a numbered list with their questions under each — plain text that reads
 * as Markdown too: the research question shown while the run works and the one stored both use it.
 */
export function briefSectionsText(brief: ResearchBrief): string {
  return brief.sections
    .map((section, index) => {
      const questions = section.questions.map((question) => `   - ${question}`).join("\n");
      return `${index + 1}. ${section.title}\n${questions}`;
    })
    .join("\n");
}
