import { describe, expect, it } from "vitest";
import type { ResearchBrief, ResearchProgress, ResearchSectionStatus } from "@/lib/protocol/research";
import { finishedSections } from "./resume";

/** docs/research.md, "Resuming": the finished sections recovered from an interrupted run's answer. */

const BRIEF: ResearchBrief = {
  goal: "Heat pumps",
  scope: "",
  sections: ["Costs", "Savings", "Limits"].map((title, index) => ({ id: `s${index + 1}`, title, questions: ["?"] })),
};
const progress = (...statuses: ResearchSectionStatus[]): ResearchProgress => ({
  phase: "writing",
  sections: statuses.map((status, index) => ({ id: `s${index + 1}`, title: "", status, sources: 0 })),
  done: 0,
  total: 3,
  sourcesRead: 0,
  maxSources: 30,
  elapsedMs: 0,
  maxMs: 1,
  budgetsReached: [],
});

describe("resuming research: the finished sections", () => {
  it("keeps the sections written, not the one cut off while it was written", () => {
    const answer = "## Costs\n\nCosts [1].\n\n## Savings\n\nSavings beg";
    const kept = finishedSections(BRIEF, answer, progress("written", "writing", "gathered"), "en");
    expect([...kept]).toEqual([["s1", "## Costs\n\nCosts [1].\n\n"]]);
  });

  it("does not keep a section whose research failed: it is researched again", () => {
    const answer = "## Costs\n\nCosts [1].\n\n## Savings\n\nThe research failed.\n\n## Limits\n\nLimits [2].\n\n";
    const kept = finishedSections(BRIEF, answer, progress("written", "failed", "written"), "en");
    expect([...kept.keys()]).toEqual(["s1", "s3"]);
    expect(kept.get("s3")).toBe("## Limits\n\nLimits [2].\n\n");
  });

  it("cuts the sections of a whole report before its references", () => {
    const answer =
      "# Heat pumps\n\n## Summary\n\nAll [1].\n\n## Costs\n\nA [1].\n\n## Savings\n\nB.\n\n## Limits\n\nC [1].\n\n## References\n\n[1] x";
    const kept = finishedSections(BRIEF, answer, progress("written", "written", "written"), "en");
    expect(kept.get("s1")).toBe("## Costs\n\nA [1].\n\n");
    expect(kept.get("s3")).toBe("## Limits\n\nC [1].\n\n");
  });

  it("keeps nothing without a stored progress", () => {
    expect(finishedSections(BRIEF, "## Costs\n\nA.\n\n", null, "en").size).toBe(0);
  });
});
