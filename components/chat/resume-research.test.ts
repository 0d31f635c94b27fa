import { createElement } from "react";
import { describe, expect, it } from "vitest";
import { emptyRunView } from "@/lib/client/run-view";
import type { ResearchProgress } from "@/lib/protocol/research";
import { renderHtml } from "@/tests/support/render-html";
import { AssistantMessage } from "./assistant-message";
import { type AssistantItem, resumableResearch } from "./chat-items";
import type { ThreadActions } from "./message-list";
import { chatRequest } from "./use-chat-runs";

/** docs/research.md, "Resuming": the "Resume research" button under an interrupted research report. */

const progress = (phase: ResearchProgress["phase"]): ResearchProgress => ({
  phase,
  sections: [],
  done: 0,
  total: 3,
  sourcesRead: 0,
  maxSources: 30,
  elapsedMs: 0,
  maxMs: 1,
  budgetsReached: [],
});
const item = (
  init: Partial<AssistantItem> & { phase?: ResearchProgress["phase"] | null; mode?: "research" | "native" },
) => {
  const { phase = "writing", mode = "research", ...rest } = init;
  return {
    kind: "assistant",
    key: "run:r1",
    status: "interrupted",
    run: emptyRunView({
      mode,
      status: "interrupted",
      answer: "## Costs\n\nText.",
      research: phase ? progress(phase) : null,
    }),
    live: false,
    reconnecting: false,
    stored: { id: "a1", versions: ["a1"] },
    ...rest,
  } as AssistantItem;
};
const actions: ThreadActions = {
  blocked: false,
  focused: null,
  edit: async () => null,
  regenerate: async () => null,
  selectVersion: async () => null,
  resumeResearch: async () => null,
};

describe("resuming research in the browser", () => {
  it("offers Resume only under a stored research report a restart interrupted once gathering began", () => {
    expect(resumableResearch(item({}))).toBe(true);
    expect(resumableResearch(item({ phase: "gathering" }))).toBe(true);
    expect(resumableResearch(item({ phase: "brief" }))).toBe(false);
    expect(resumableResearch(item({ phase: null }))).toBe(false);
    expect(resumableResearch(item({ mode: "native" }))).toBe(false);
    expect(resumableResearch(item({ status: "stopped" }))).toBe(false);
    expect(resumableResearch(item({ stored: null }))).toBe(false);
  });

  it("shows the Resume research button beside Retry, in both languages", () => {
    const html = (locale: "en" | "ja", shown = item({})) =>
      renderHtml(createElement(AssistantMessage, { item: shown, actions }), locale);
    expect(html("en")).toContain("Resume research");
    expect(html("ja")).toContain("リサーチを再開");
    expect(html("en")).toContain('data-testid="retry-button"');
    expect(html("en", item({ status: "stopped" }))).not.toContain("resume-research-button");
  });

  it("sends the interrupted answer as resume, in research mode, and nothing else to answer", () => {
    expect(chatRequest({ conversationId: "c1", model: "m", message: "", resume: "a1" })).toEqual({
      conversationId: "c1",
      model: "m",
      mode: "research",
      resume: "a1",
    });
  });
});
