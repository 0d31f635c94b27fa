import { createElement } from "react";
import { describe, expect, it } from "vitest";
import type { TimelineEntry, ToolResult } from "@/lib/client/run-view";
import { renderHtml } from "@/tests/support/render-html";
import { RunTimeline } from "./run-timeline";

const result: ToolResult = {
  ok: true,
  observation: "page text",
  paging: null,
  durationMs: 5,
  artifact: null,
  source: null,
  results: null,
};

const call = (key: string, iteration: number, stepId?: string): TimelineEntry => ({
  kind: "tool",
  key,
  callId: key,
  tool: "web_search",
  args: { query: key },
  iteration,
  startedAt: null,
  result,
  ...(stepId ? { stepId } : {}),
});

const thinking: TimelineEntry = {
  kind: "thinking",
  key: "t",
  text: "Let me think",
  live: false,
  durationMs: 1000,
  iteration: 0,
};

const render = (timeline: TimelineEntry[], runEnded: boolean) =>
  renderHtml(createElement(RunTimeline, { timeline, runEnded, elapsedMs: 12_000 }));

describe("the run's trail", () => {
  it("folds into one closed summary line once a run that used tools has ended", () => {
    const html = render([call("a", 0), call("b", 0), call("c", 1)], true);
    expect(html).toContain('data-testid="run-trail-toggle"');
    expect(html).toContain('aria-expanded="false"');
    expect(html).toMatch(/data-testid="run-timeline" hidden=""/);
    // Two calls of one iteration are one round.
    expect(html).toContain("2 rounds · 0 sources · 12 s");
  });

  it("shows everything, with no summary, while the run is live", () => {
    const html = render([call("a", 0)], false);
    expect(html).not.toContain("run-trail-toggle");
    expect(html).not.toMatch(/data-testid="run-timeline" hidden/);
  });

  it("does not fold a run that used no tool: its thinking stays in view", () => {
    const html = render([thinking], true);
    expect(html).not.toContain("run-trail-toggle");
    expect(html).toContain("Let me think");
  });

  it("counts a DAG step's iteration as its own round, apart from another step's same iteration", () => {
    const html = render([call("a", 0, "s1"), call("b", 0, "s2")], true);
    expect(html).toContain("2 rounds");
  });
});
