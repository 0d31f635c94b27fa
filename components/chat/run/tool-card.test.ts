import { createElement } from "react";
import { describe, expect, it } from "vitest";
import { applyStep, type ToolResult } from "@/lib/client/run-view";
import type { Paging } from "@/lib/protocol/run-events";
import { formatPageInfo, type PageInfo } from "@/lib/tools/page-info";
import { renderHtml } from "@/tests/support/render-html";
import { StatusBadge, ToolObservation } from "./tool-card";

const result = (observation: string, paging: Paging | null): ToolResult => ({
  ok: true,
  errorKind: null,
  observation,
  paging,
  durationMs: 5,
  artifact: null,
  source: null,
  results: null,
});

const render = (value: ToolResult) => renderHtml(createElement(ToolObservation, { result: value }));

/** A page's observation as the model read it, and its paging data as the step carries it. */
const page = (body: string, info: PageInfo): [string, Paging] => [
  body + formatPageInfo(info),
  { ...info, bodyChars: body.length },
];

describe("a tool card's observation", () => {
  it("shows a page without the footer the model read, and says from the paging data that more follows", () => {
    const html = render(
      result(...page("Page text", { nextToken: "TOKEN", sourcePages: { first: 1, last: 3, total: 10 } })),
    );
    expect(html).toContain("Page text</pre>");
    expect(html).not.toContain("page-info");
    expect(html).not.toContain("TOKEN");
    expect(html).toContain("More text follows (pages 1-3/10)");
  });

  it("says more follows without pages for a page that names none", () => {
    const html = render(result(...page("Page text", { nextToken: "TOKEN" })));
    expect(html).toContain("Page text</pre>");
    expect(html).toMatch(/More text follows; /);
  });

  it("shows a result without paging data whole, even when its text ends like a footer", () => {
    const quoted = `How paging works:${formatPageInfo({ nextToken: "EXAMPLE", sourcePages: { first: 1, last: 1, total: 2 } })}`;
    const html = render(result(quoted, null));
    expect(html).toContain("---page-info---");
    expect(html).toContain("next_token: EXAMPLE");
    expect(html).not.toContain("More text follows");
  });
});

describe("a tool card's result", () => {
  it("carries the paging data of its tool_result step", () => {
    const [observation, paging] = page("Text", { nextToken: "TOKEN", sourcePages: { first: 2, last: 2, total: 5 } });
    const called = applyStep(
      [],
      { type: "tool_call", seq: 1, at: 0, iteration: 1, callId: "c1", tool: "pdf_to_text", args: {} },
      null,
    );
    const [entry] = applyStep(
      called,
      {
        type: "tool_result",
        seq: 2,
        at: 0,
        iteration: 1,
        callId: "c1",
        tool: "pdf_to_text",
        ok: true,
        observation,
        paging,
        durationMs: 3,
      },
      null,
    );
    expect(entry).toMatchObject({ kind: "tool", result: { ok: true, paging } });
  });
});

describe("a failed tool card", () => {
  const badge = (errorKind: ToolResult["errorKind"], locale?: "ja") =>
    renderHtml(createElement(StatusBadge, { state: "error", time: null, errorKind }), locale);

  it("names the failure's kind from its step, in the reader's language", () => {
    expect(badge("blocked_url")).toContain("Address not allowed");
    expect(badge("not_approved", "ja")).toContain("承認されず");
  });

  it("says only that it failed when the step carries no kind (a run stored before kinds were sent)", () => {
    expect(badge(null)).toMatch(/data-testid="tool-failure"[^>]*>Failed</);
  });
});
