import { describe, expect, it } from "vitest";
import type { ResearchBrief } from "@/lib/protocol/research";
import { researchStartSchema } from "@/lib/protocol/research";
import {
  addSection,
  briefFromDraft,
  briefQuestion,
  canAddSection,
  canDropSection,
  draftFromBrief,
  dropSection,
  editSection,
  moveSection,
  type OutlineDraft,
  outlineProblems,
  researchStartBody,
} from "./outline-draft";

const brief = (count: number): ResearchBrief => ({
  goal: "Compare heat pumps",
  scope: "Homes in Europe",
  sections: Array.from({ length: count }, (_, i) => ({
    id: `s${i + 1}`,
    title: `Section ${i + 1}`,
    questions: [`Question ${i + 1}a?`, `Question ${i + 1}b?`],
  })),
});

const ids = (draft: OutlineDraft) => draft.sections.map((section) => section.id);

describe("the outline card's draft", () => {
  it("moves a section up or down one place, and leaves it at either end", () => {
    const draft = draftFromBrief(brief(3));
    expect(ids(moveSection(draft, "s2", -1))).toEqual(["s2", "s1", "s3"]);
    expect(ids(moveSection(draft, "s2", 1))).toEqual(["s1", "s3", "s2"]);
    expect(moveSection(draft, "s1", -1)).toBe(draft);
    expect(moveSection(draft, "s3", 1)).toBe(draft);
  });

  it("renames a section and edits its questions one a line, keeping its id", () => {
    let draft = draftFromBrief(brief(3));
    draft = editSection(draft, "s2", { title: "Running costs", questions: "What does a year cost?\n\n  Who pays?  " });
    const result = briefFromDraft(draft);
    if (!result.ok) throw new Error("the edited draft is a brief");
    expect(result.brief.sections[1]).toEqual({
      id: "s2",
      title: "Running costs",
      questions: ["What does a year cost?", "Who pays?"],
    });
  });

  it("drops a section, but never below three", () => {
    const four = draftFromBrief(brief(4));
    expect(canDropSection(four)).toBe(true);
    const three = dropSection(four, "s2");
    expect(ids(three)).toEqual(["s1", "s3", "s4"]);
    expect(canDropSection(three)).toBe(false);
    expect(dropSection(three, "s1")).toBe(three);
  });

  it("adds a section at the end, but never beyond eight", () => {
    const seven = draftFromBrief(brief(7));
    const eight = addSection(seven, "New section");
    expect(eight.sections).toHaveLength(8);
    expect(eight.sections[7]).toMatchObject({ title: "New section", questions: "" });
    expect(canAddSection(eight)).toBe(false);
    expect(addSection(eight, "Ninth")).toBe(eight);
  });

  it("gives an added section an id no other section has, whatever the model named them", () => {
    const named: ResearchBrief = {
      ...brief(3),
      sections: ["s4", "s5", "history"].map((id) => ({ id, title: id, questions: ["Why?"] })),
    };
    let draft = draftFromBrief(named);
    draft = addSection(draft, "A");
    draft = dropSection(draft, "s5");
    draft = addSection(draft, "B");
    draft = addSection(draft, "C");
    expect(new Set(ids(draft)).size).toBe(draft.sections.length);
    expect(ids(draft)).toEqual(["s4", "history", "s6", "s5", "s7"]);
  });

  it("refuses to start an added section with no title or no question, naming it", () => {
    const draft = addSection(draftFromBrief(brief(3)), "");
    const added = draft.sections[3]?.id ?? "";
    expect(outlineProblems(draft)).toEqual([
      { kind: "title_empty", sectionId: added },
      { kind: "no_questions", sectionId: added },
    ]);
    expect(briefFromDraft(draft).ok).toBe(false);
    const filled = editSection(draft, added, { title: "Grants", questions: "Which grants exist?" });
    expect(briefFromDraft(filled).ok).toBe(true);
  });

  it("says when a brief has too few or too many sections (a stored one outside the bounds)", () => {
    const two: OutlineDraft = { ...draftFromBrief(brief(3)), sections: draftFromBrief(brief(2)).sections };
    expect(outlineProblems(two)).toEqual([{ kind: "too_few_sections", min: 3 }]);
    const nine: OutlineDraft = { ...draftFromBrief(brief(3)), sections: draftFromBrief(brief(9)).sections };
    expect(outlineProblems(nine)).toEqual([{ kind: "too_many_sections", max: 8 }]);
  });

  it("refuses an empty goal, too many questions and text longer than the protocol takes", () => {
    let draft = { ...draftFromBrief(brief(3)), goal: "  " };
    draft = editSection(draft, "s1", { questions: Array.from({ length: 9 }, (_, i) => `Q${i}?`).join("\n") });
    draft = editSection(draft, "s2", { title: "x".repeat(201) });
    expect(outlineProblems(draft)).toEqual([
      { kind: "goal_empty" },
      { kind: "too_many_questions", sectionId: "s1", max: 8 },
      { kind: "too_long", sectionId: "s2", max: 200 },
    ]);
  });
});

describe("the body that starts the research", () => {
  it("is a research turn after the brief's answer, with the edited brief and no message, as the protocol takes it", () => {
    const edited = moveSection(dropSection(draftFromBrief(brief(4)), "s3"), "s4", -1);
    const result = briefFromDraft(edited);
    if (!result.ok) throw new Error("the edited draft is a brief");
    const body = researchStartBody({ conversationId: "c1", parentId: "m7", brief: result.brief, model: "qwen3" });
    expect(body).toEqual({
      conversationId: "c1",
      model: "qwen3",
      mode: "research",
      parentId: "m7",
      research: { brief: result.brief },
    });
    expect(body).not.toHaveProperty("message");
    expect(body.research.brief.sections.map((section) => section.id)).toEqual(["s1", "s4", "s2"]);
    expect(researchStartSchema.safeParse(body.research).success).toBe(true);
  });

  it("names no model when none is chosen: the conversation's is used", () => {
    const result = briefFromDraft(draftFromBrief(brief(3)));
    if (!result.ok) throw new Error("a brief");
    expect(researchStartBody({ conversationId: "c1", parentId: "m1", brief: result.brief })).not.toHaveProperty(
      "model",
    );
  });
});

describe("the question a research turn shows while it runs", () => {
  it("is the brief sent, as Markdown: goal, scope and the sections in their order with their questions", () => {
    const sent = moveSection(draftFromBrief(brief(3)), "s3", -1);
    const result = briefFromDraft(sent);
    if (!result.ok) throw new Error("a brief");
    const text = briefQuestion(result.brief, {
      goal: (goal) => `Research: ${goal}`,
      scope: (scope) => `Scope: ${scope}`,
    });
    expect(text).toBe(
      [
        "Research: Compare heat pumps",
        "",
        "Scope: Homes in Europe",
        "",
        "1. Section 1",
        "   - Question 1a?",
        "   - Question 1b?",
        "2. Section 3",
        "   - Question 3a?",
        "   - Question 3b?",
        "3. Section 2",
        "   - Question 2a?",
        "   - Question 2b?",
      ].join("\n"),
    );
  });
});
