import { createElement } from "react";
import { describe, expect, it } from "vitest";
import type { ResearchBrief } from "@/lib/protocol/research";
import { renderHtml } from "@/tests/support/render-html";
import { OutlineCard } from "./outline-card";
import { QuestionsCard } from "./questions-card";

const brief: ResearchBrief = {
  goal: "Compare heat pumps",
  scope: "",
  sections: [
    { id: "s1", title: "Costs", questions: ["What do they cost?"] },
    { id: "s2", title: "Savings", questions: ["What do they save?", "How fast?"] },
    { id: "s3", title: "Limits", questions: ["Where do they fail?"] },
  ],
};

const text = (html: string) =>
  html
    .replace(/<!-- -->/g, "")
    .replace(/<[^>]+>/g, " ")
    .replace(/\s+/g, " ");

describe("the outline card", () => {
  it("is a form to edit and start when it can start the research, with every section's title and questions", () => {
    const html = renderHtml(createElement(OutlineCard, { brief, start: { onStart: async () => null } }));
    expect(html).toContain('data-editable="true"');
    expect(html.match(/data-testid="outline-section-title"/g)).toHaveLength(3);
    expect(html).toContain('value="Savings"');
    expect(html).toContain("What do they save?\nHow fast?");
    expect(text(html)).toContain("3 of 3–8 sections");
    // At the minimum, Drop says it is refused (and is still reachable by keyboard to say why).
    expect(html.match(/data-testid="outline-drop"[^>]*aria-disabled="true"/g)).toHaveLength(3);
    expect(html).not.toMatch(/data-testid="outline-start"[^>]*disabled=""/);
  });

  it("cannot be started while it waits, and says why", () => {
    const html = renderHtml(createElement(OutlineCard, { brief, start: { waiting: "Wait for the running answer." } }));
    expect(html).toMatch(/data-testid="outline-start"[^>]*disabled=""/);
    expect(text(html)).toContain("Wait for the running answer.");
  });

  it("shows an older brief as it was, in both locales, without a form", () => {
    const en = renderHtml(createElement(OutlineCard, { brief, start: null }));
    expect(en).toContain('data-editable="false"');
    expect(en).not.toContain("<input");
    expect(text(en)).toContain("Goal Compare heat pumps Scope As the goal says");
    expect(text(en)).toMatch(/2\. Savings What do they save\? How fast\?/);
    expect(text(renderHtml(createElement(OutlineCard, { brief, start: null }), "ja"))).toContain(
      "目的 Compare heat pumps",
    );
  });
});

describe("the clarifying questions card", () => {
  it("lists the questions and says that the reply is a normal message", () => {
    const html = text(renderHtml(createElement(QuestionsCard, { questions: ["Which country?", "Air or ground?"] })));
    expect(html).toContain("Which country? Air or ground?");
    expect(html).toContain("Answer in a message below");
  });
});
