import { createElement } from "react";
import { describe, expect, it } from "vitest";
import type { ResearchProgress } from "@/lib/protocol/research";
import { renderHtml } from "@/tests/support/render-html";
import { ProgressCard } from "./progress-card";

const progress = (extra: Partial<ResearchProgress> = {}): ResearchProgress => ({
  phase: "gathering",
  sections: [
    { id: "s1", title: "Costs", status: "written", sources: 3 },
    { id: "s2", title: "Savings", status: "failed", sources: 0, reason: "No page answered it." },
    { id: "s3", title: "Limits", status: "gathering", sources: 1 },
  ],
  done: 1,
  total: 3,
  sourcesRead: 4,
  maxSources: 30,
  elapsedMs: 125_000,
  maxMs: 1_200_000,
  budgetsReached: [],
  ...extra,
});

/** The card's text, tags dropped: what a reader (and a screen reader) gets. */
const card = (value: ResearchProgress, locale: "en" | "ja" = "en") =>
  renderHtml(createElement(ProgressCard, { progress: value, live: false }), locale)
    .replace(/<!-- -->/g, "")
    .replace(/<[^>]+>/g, " ")
    .replace(/\s+/g, " ");

describe("the research progress card", () => {
  it("says the sections written, the sources read and the time, each of its budget, in both locales", () => {
    const en = card(progress());
    expect(en).toContain("Sections written: 1 of 3");
    expect(en).toContain("Sources read: 4 of 30");
    expect(en).toContain("Time: 2 min 5 s of 20 min 0 s");
    const ja = card(progress(), "ja");
    expect(ja).toContain("執筆済みセクション：1 / 3");
    expect(ja).toContain("読んだ情報源：4 / 30");
  });

  it("marks the current phase among outline, gathering, writing and verifying", () => {
    for (const phase of ["brief", "gathering", "writing", "verifying"] as const) {
      const html = renderHtml(createElement(ProgressCard, { progress: progress({ phase }), live: true }));
      const current = html.match(/<li[^>]*aria-current="step"[^>]*>/g) ?? [];
      expect(current).toHaveLength(1);
      expect(current[0]).toContain(`data-phase="${phase}"`);
    }
    expect(card(progress({ phase: "verifying" }))).toMatch(/Outline.*Gathering.*Writing.*Verifying/);
  });

  it("lists each section with its state and its sources, and why a failed one failed", () => {
    const text = card(progress());
    expect(text).toContain("Costs Written 3 sources");
    expect(text).toContain("Savings Failed no sources Failed: No page answered it.");
    expect(text).toContain("Limits Gathering 1 source");
    expect(card(progress(), "ja")).toContain("Savings 失敗 情報源なし 失敗：No page answered it.");
  });

  it("says which budgets are used up, and nothing of budgets while none is", () => {
    expect(card(progress())).not.toContain("budget reached");
    const both = card(progress({ budgetsReached: ["sources", "time"], sourcesRead: 30, elapsedMs: 1_200_000 }));
    expect(both).toContain("Source budget reached: no more pages or files are read.");
    expect(both).toContain("Time budget reached: gathering ended");
    expect(both).toContain("Time: 20 min 0 s of 20 min 0 s");
    const sourcesOnly = card(progress({ budgetsReached: ["sources"] }), "ja");
    expect(sourcesOnly).toContain("情報源の上限に達しました");
    expect(sourcesOnly).not.toContain("時間の上限");
  });

  it("while the brief is made, shows the phase only: no sections, sources or time yet", () => {
    const making = card(progress({ phase: "brief", sections: [], done: 0, total: 0, sourcesRead: 0, elapsedMs: 0 }));
    expect(making).toContain("Outline");
    expect(making).not.toContain("Sections written");
    expect(making).not.toContain("Sources read");
  });
});
