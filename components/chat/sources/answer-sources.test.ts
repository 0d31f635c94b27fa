import { createElement } from "react";
import { describe, expect, it } from "vitest";
import { applyStep, type TimelineEntry } from "@/lib/client/run-view";
import type { SearchHit, Source } from "@/lib/protocol/run-events";
import { renderHtml } from "@/tests/support/render-html";
import { ConversationFilesContext } from "../files/conversation-files-context";
import { SearchResults } from "../run/read-source";
import { AnswerWithSources } from "./answer-sources";

/** A finished run's timeline that read these sources, one call each, as the stored steps give it. */
function timelineOf(sources: Source[]): TimelineEntry[] {
  return sources.reduce<TimelineEntry[]>(
    (timeline, source, index) =>
      applyStep(
        timeline,
        {
          type: "tool_result",
          iteration: 1,
          callId: `c${index}`,
          tool: "scrape_url",
          ok: true,
          observation: "text",
          durationMs: 1,
          source,
          seq: index,
          at: 0,
        },
        null,
      ),
    [],
  );
}

const render = (text: string, sources: Source[]) =>
  renderHtml(
    createElement(
      ConversationFilesContext.Provider,
      { value: { conversationId: "c1", names: new Map() } },
      createElement(AnswerWithSources, { text, streaming: false, timeline: timelineOf(sources) }),
    ),
  );

const PAGE: Source = { n: 1, url: "https://example.com/a", title: "Example A" };

describe("sources under an answer", () => {
  it("[n] links to source n's URL in a new tab; a number no source has stays text", () => {
    const html = render("Fact [1]. Other [7]. Code `x[1]`.", [PAGE]);
    const citations = [...html.matchAll(/<a [^>]*data-testid="citation"[^>]*>\[1\]<\/a>/g)];
    expect(citations).toHaveLength(1);
    expect(citations[0]?.[0]).toContain('href="https://example.com/a"');
    expect(citations[0]?.[0]).toContain('rel="noopener noreferrer"');
    expect(html).toContain("Other [7].");
    expect(html).toMatch(/<code[^>]*>x\[1\]<\/code>/);
  });

  it("lists every source read once, as numbered chips linking to the page or the attached file", () => {
    const file: Source = { n: 2, url: "attachment:f9", title: "report.pdf" };
    const html = render("Answer [1][2]", [PAGE, file, PAGE]);
    const chips = [...html.matchAll(/<li data-testid="source-chip" data-source="(\d)">.*?<\/li>/g)];
    expect(chips.map((chip) => chip[1])).toEqual(["1", "2"]);
    expect(chips[0]?.[0]).toContain('href="https://example.com/a"');
    expect(chips[0]?.[0]).toContain("example.com");
    expect(chips[1]?.[0]).toContain('href="/api/conversations/c1/files/f9"');
    expect(html).toMatch(/<a [^>]*href="\/api\/conversations\/c1\/files\/f9"[^>]*data-citation="2"/);
  });

  it("only http(s) sources become links: javascript: and data: never do, in chips or citations", () => {
    const bad: Source[] = [
      { n: 1, url: "javascript:alert(1)", title: "<img src=x onerror=alert(1)>" },
      { n: 2, url: "data:text/html,<script>alert(1)</script>", title: "data" },
      { n: 3, url: "JaVaScRiPt:alert(1)//https://ok", title: "mixed" },
    ];
    const html = render("See [1] [2] [3]", bad);
    expect(html).not.toMatch(/href="(javascript|data):/i);
    expect(html).not.toContain("<img");
    expect(html).not.toContain('data-testid="citation"');
    expect(html.match(/data-testid="source-chip"/g)).toHaveLength(3);
  });

  it("no chips when the run read nothing", () => {
    expect(render("Plain [1]", [])).not.toContain("answer-sources");
  });
});

describe("web_search results on the tool card", () => {
  it("shows title links, domain and snippet, not JSON; a non-http result is not a link", () => {
    const hits: SearchHit[] = [
      { title: "Quokka facts", url: "https://www.quokka.test/facts", snippet: "Small marsupial" },
      { title: "Evil", url: "javascript:alert(1)", snippet: "x" },
    ];
    const html = renderHtml(createElement(SearchResults, { results: hits }));
    expect(html).toMatch(
      /<a href="https:\/\/www.quokka.test\/facts" target="_blank" rel="noopener noreferrer"[^>]*>Quokka facts<\/a>/,
    );
    expect(html).toContain(">quokka.test</span>");
    expect(html).toContain("Small marsupial");
    expect(html).not.toMatch(/href="javascript:/i);
    expect(html).not.toContain('"snippet"');
  });
});
