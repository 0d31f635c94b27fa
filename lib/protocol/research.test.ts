import { describe, expect, it } from "vitest";
import { researchBriefEventSchema, researchBriefSchema, researchStartSchema } from "./research";

const section = (id: string) => ({ id, title: `Section ${id}`, questions: [`What about ${id}?`] });
const brief = (count: number) => ({
  goal: "Compare heat pumps",
  scope: "",
  sections: Array.from({ length: count }, (_, index) => section(`s${index + 1}`)),
});

describe("a research brief (docs/research.md, Research mode)", () => {
  it("has 3 to 8 sections", () => {
    expect(researchBriefSchema.safeParse(brief(2)).success).toBe(false);
    expect(researchBriefSchema.safeParse(brief(3)).success).toBe(true);
    expect(researchBriefSchema.safeParse(brief(8)).success).toBe(true);
    expect(researchBriefSchema.safeParse(brief(9)).success).toBe(false);
  });

  it("names each section by an id used once", () => {
    const twice = { ...brief(3), sections: [section("a"), section("b"), section("a")] };
    const parsed = researchBriefSchema.safeParse(twice);
    expect(parsed.success).toBe(false);
    expect(parsed.error?.issues[0]).toMatchObject({ path: ["sections", 2, "id"], message: '"a" is used twice' });
  });

  it("gives each section at least one question", () => {
    const empty = { ...brief(3), sections: [{ ...section("a"), questions: [] }, section("b"), section("c")] };
    expect(researchBriefSchema.safeParse(empty).success).toBe(false);
  });

  it("asks at most 3 clarifying questions instead of a brief", () => {
    const questions = (count: number) => ({
      kind: "questions",
      questions: Array.from({ length: count }, () => "Which?"),
    });
    expect(researchBriefEventSchema.safeParse(questions(3)).success).toBe(true);
    expect(researchBriefEventSchema.safeParse(questions(4)).success).toBe(false);
    expect(researchBriefEventSchema.safeParse(questions(0)).success).toBe(false);
  });

  it("starts research only from a brief, with nothing else in the field", () => {
    expect(researchStartSchema.safeParse({ brief: brief(3) }).success).toBe(true);
    expect(researchStartSchema.safeParse({ brief: brief(3), goal: "x" }).success).toBe(false);
  });
});
