import { createElement } from "react";
import { describe, expect, it } from "vitest";
import { applyStep, type TimelineEntry } from "@/lib/client/run-view";
import type { CitationCheck, CitationReport } from "@/lib/protocol/citations";
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

const render = (answer: string, sources: Source[], report: CitationReport | null = null, locale?: "ja") =>
  renderHtml(
    createElement(
      ConversationFilesContext.Provider,
      { value: { conversationId: "c1", names: new Map() } },
      createElement(AnswerWithSources, { answer, streaming: false, timeline: timelineOf(sources), report }),
    ),
    locale,
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

/** A check of the sentence of `answer` that holds `sentence`, citing source n. */
function checkOf(answer: string, sentence: string, n: number, verdict: CitationCheck["verdict"]): CitationCheck {
  const start = answer.indexOf(sentence);
  return {
    sentence: sentence.replace(/\s*\[\d+\]/g, ""),
    start,
    end: start + sentence.length,
    n,
    verdict,
    passage: { text: "The quokka weighs 2.5 kg.", start: 0, end: 25, matched: ["quokka", "2.5 kg"] },
    missing: [],
  };
}

const chipsOf = (html: string) =>
  [...html.matchAll(/<button [^>]*data-testid="citation"[^>]*>/g)].map((match) => ({
    verdict: /data-verdict="([^"]+)"/.exec(match[0])?.[1],
    label: /aria-label="([^"]+)"/.exec(match[0])?.[1],
  }));

describe("citation chips coloured by verdict", () => {
  const PAGE2: Source = { n: 2, url: "https://example.com/b", title: "Example B" };
  const answer = "Quokkas weigh 2.5 kg [1]. They live on Rottnest [2]. Both say so [1][2].\n\n- Small [2].";
  const report: CitationReport = {
    checks: [
      checkOf(answer, "Quokkas weigh 2.5 kg [1].", 1, "supported"),
      checkOf(answer, "They live on Rottnest [2].", 2, "partly"),
      checkOf(answer, "Both say so [1][2].", 1, "unsupported"),
      checkOf(answer, "Both say so [1][2].", 2, "found"),
      checkOf(answer, "Small [2].", 2, "not_found"),
    ],
    checkedAt: 1,
  };

  it("each [n] takes the verdict of its own sentence's check for n, named with it", () => {
    const chips = chipsOf(render(answer, [PAGE, PAGE2], report));
    expect(chips.map((chip) => chip.verdict)).toEqual(["supported", "partly", "unsupported", "found", "not_found"]);
    expect(chips[0]?.label).toBe("Source 1 — supported");
    expect(chips[4]?.label).toBe("Source 2 — not found");
  });

  it("names the verdict in Japanese too", () => {
    expect(chipsOf(render(answer, [PAGE, PAGE2], report, "ja"))[1]?.label).toBe("出典 2 — 一部裏付けあり");
  });

  it("a marker no check covers stays a link to its source", () => {
    const partial: CitationReport = { ...report, checks: report.checks.slice(0, 1) };
    const html = render(answer, [PAGE, PAGE2], partial);
    expect(chipsOf(html)).toHaveLength(1);
    expect(html.match(/<a [^>]*data-testid="citation"/g)).toHaveLength(4);
  });

  it("matches chips to checks in the stored answer's offsets when attachment links lengthen the text drawn", () => {
    const id = "0b3c6a1e-8f5d-4c1a-9a77-1f2e3d4c5b6a";
    const long = `See attachment:${id} for more [2]. Quokkas weigh 2.5 kg [1].`;
    const checks = [
      checkOf(long, "See attachment", 2, "partly"),
      checkOf(long, "Quokkas weigh 2.5 kg [1].", 1, "supported"),
    ];
    checks[0] = { ...checks[0], end: long.indexOf("Quokkas") } as CitationCheck;
    const html = renderHtml(
      createElement(
        ConversationFilesContext.Provider,
        { value: { conversationId: "c1", names: new Map([[id, "a-rather-long-file-name-indeed.pdf"]]) } },
        createElement(AnswerWithSources, {
          answer: long,
          streaming: false,
          timeline: timelineOf([PAGE, PAGE2]),
          report: { checks, checkedAt: 1 },
        }),
      ),
    );
    expect(html).toContain("a-rather-long-file-name-indeed.pdf");
    expect(chipsOf(html).map((chip) => chip.verdict)).toEqual(["partly", "supported"]);
  });

  it("says how the citations checked out under the answer", () => {
    const html = render(answer, [PAGE, PAGE2], report);
    expect(html).toContain("1 of 5 citations supported · 1 partly · 1 not supported · 1 not found · 1 not checked");
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
