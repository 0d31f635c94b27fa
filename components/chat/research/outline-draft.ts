/**
 * The outline card's editing state (docs/research.md, "Research mode"): the brief a research run
 * proposed, as the user reorders, renames, drops and adds sections and edits their questions, and
 * the body that starts the research of it. Pure: the card keeps a draft in state and calls these.
 */
import {
  briefSectionsText,
  RESEARCH_MAX_SECTION_QUESTIONS,
  RESEARCH_MAX_SECTIONS,
  RESEARCH_MIN_SECTIONS,
  type ResearchBrief,
  researchBriefSchema,
} from "@/lib/protocol/research";

/** What researchSectionSchema takes. */
export const MAX_TITLE_CHARS = 200;
export const MAX_QUESTION_CHARS = 500;
export const MAX_GOAL_CHARS = 2000;

/** A section as it is edited: its questions one a line, as the user types them. */
export interface DraftSection {
  id: string;
  title: string;
  questions: string;
}

export interface OutlineDraft {
  goal: string;
  scope: string;
  sections: DraftSection[];
}

/** What keeps a draft from being started; the card words each in the user's language. */
export type OutlineProblem =
  | { kind: "goal_empty" }
  | { kind: "goal_too_long"; max: number }
  | { kind: "too_few_sections"; min: number }
  | { kind: "too_many_sections"; max: number }
  | { kind: "title_empty"; sectionId: string }
  | { kind: "no_questions"; sectionId: string }
  | { kind: "too_many_questions"; sectionId: string; max: number }
  /** A title or a question longer than the protocol takes (pasted text). */
  | { kind: "too_long"; sectionId: string; max: number };

export function draftFromBrief(brief: ResearchBrief): OutlineDraft {
  return {
    goal: brief.goal,
    scope: brief.scope,
    sections: brief.sections.map((section) => ({ ...section, questions: section.questions.join("\n") })),
  };
}

/** A section's questions: one a line, blank lines dropped. */
export function questionList(text: string): string[] {
  return text
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => line.length > 0);
}

export const canAddSection = (draft: OutlineDraft) => draft.sections.length < RESEARCH_MAX_SECTIONS;
export const canDropSection = (draft: OutlineDraft) => draft.sections.length > RESEARCH_MIN_SECTIONS;

/** Moves a section one place up (-1) or down (1); at either end it stays. */
export function moveSection(draft: OutlineDraft, id: string, step: -1 | 1): OutlineDraft {
  const from = draft.sections.findIndex((section) => section.id === id);
  const to = from + step;
  if (from === -1 || to < 0 || to >= draft.sections.length) return draft;
  const sections = [...draft.sections];
  [sections[from], sections[to]] = [sections[to] as DraftSection, sections[from] as DraftSection];
  return { ...draft, sections };
}

export function editSection(draft: OutlineDraft, id: string, change: Partial<Omit<DraftSection, "id">>): OutlineDraft {
  return {
    ...draft,
    sections: draft.sections.map((section) => (section.id === id ? { ...section, ...change } : section)),
  };
}

/** Drops a section, unless the brief would then have fewer than its minimum. */
export function dropSection(draft: OutlineDraft, id: string): OutlineDraft {
  if (!canDropSection(draft)) return draft;
  return { ...draft, sections: draft.sections.filter((section) => section.id !== id) };
}

/** Adds a section at the end with an id no section has, unless the brief has its maximum already. */
export function addSection(draft: OutlineDraft, title: string): OutlineDraft {
  if (!canAddSection(draft)) return draft;
  return { ...draft, sections: [...draft.sections, { id: freeId(draft), title, questions: "" }] };
}

/** `s<n>` for the smallest n past the sections' count that no section uses (a model may name them anything). */
function freeId(draft: OutlineDraft): string {
  const taken = new Set(draft.sections.map((section) => section.id));
  let n = draft.sections.length + 1;
  while (taken.has(`s${n}`)) n += 1;
  return `s${n}`;
}

/** Everything that keeps the draft from being started, in the order the card shows it. */
export function outlineProblems(draft: OutlineDraft): OutlineProblem[] {
  const problems: OutlineProblem[] = [];
  if (!draft.goal.trim()) problems.push({ kind: "goal_empty" });
  if (draft.goal.trim().length > MAX_GOAL_CHARS || draft.scope.trim().length > MAX_GOAL_CHARS) {
    problems.push({ kind: "goal_too_long", max: MAX_GOAL_CHARS });
  }
  if (draft.sections.length < RESEARCH_MIN_SECTIONS) {
    problems.push({ kind: "too_few_sections", min: RESEARCH_MIN_SECTIONS });
  }
  if (draft.sections.length > RESEARCH_MAX_SECTIONS) {
    problems.push({ kind: "too_many_sections", max: RESEARCH_MAX_SECTIONS });
  }
  for (const section of draft.sections) {
    const questions = questionList(section.questions);
    if (!section.title.trim()) problems.push({ kind: "title_empty", sectionId: section.id });
    if (questions.length === 0) problems.push({ kind: "no_questions", sectionId: section.id });
    if (questions.length > RESEARCH_MAX_SECTION_QUESTIONS) {
      problems.push({ kind: "too_many_questions", sectionId: section.id, max: RESEARCH_MAX_SECTION_QUESTIONS });
    }
    if (section.title.trim().length > MAX_TITLE_CHARS) {
      problems.push({ kind: "too_long", sectionId: section.id, max: MAX_TITLE_CHARS });
    } else if (questions.some((question) => question.length > MAX_QUESTION_CHARS)) {
      problems.push({ kind: "too_long", sectionId: section.id, max: MAX_QUESTION_CHARS });
    }
  }
  return problems;
}

/** The brief the draft says; or what keeps it from being one. */
export function briefFromDraft(
  draft: OutlineDraft,
): { ok: true; brief: ResearchBrief } | { ok: false; problems: OutlineProblem[] } {
  const problems = outlineProblems(draft);
  if (problems.length > 0) return { ok: false, problems };
  // The protocol's own schema: the server refuses what it refuses (it throws here only on a bug above).
  const brief = researchBriefSchema.parse({
    goal: draft.goal,
    scope: draft.scope,
    sections: draft.sections.map((section) => ({
      id: section.id,
      title: section.title,
      questions: questionList(section.questions),
    })),
  });
  return { ok: true, brief };
}

/** The brief as Markdown, worded by `words`: the question a research turn shows until the stored one is read. */
export function briefQuestion(
  brief: ResearchBrief,
  words: { goal: (goal: string) => string; scope: (scope: string) => string },
): string {
  return [words.goal(brief.goal), words.scope(brief.scope), briefSectionsText(brief)].join("\n\n");
}

/**
 * `POST /api/chat`'s body that starts the research of the edited brief: after the brief's answer
 * (`parentId`), no message (the server stores the brief as the question).
 */
export function researchStartBody({
  conversationId,
  parentId,
  brief,
  model,
}: {
  conversationId: string;
  parentId: string;
  brief: ResearchBrief;
  model?: string;
}) {
  return {
    conversationId,
    ...(model ? { model } : {}),
    mode: "research" as const,
    parentId,
    research: { brief },
  };
}
