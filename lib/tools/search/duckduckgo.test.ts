import { describe, expect, it } from "vitest";
import { DDG_CHALLENGE_PAGE, duckDuckGoPage } from "@/tests/support/fake-web";
import { decodeResultLink, parseDuckDuckGoHtml } from "./duckduckgo";

describe("DuckDuckGo HTML results", () => {
  it("parses title, the uddg-decoded href and the snippet of each result", () => {
    const html = duckDuckGoPage([
      { title: "First <b>hit</b>", href: "https://example.com/a?x=1&y=2", snippet: "About <b>a</b>" },
      { title: "Second", href: "https://example.org/日本", snippet: "B" },
    ]);
    expect(parseDuckDuckGoHtml(html, 200)).toEqual({
      kind: "results",
      results: [
        { title: "First hit", href: "https://example.com/a?x=1&y=2", body: "About a" },
        { title: "Second", href: "https://example.org/日本", body: "B" },
      ],
    });
  });

  it("skips ads", () => {
    const html = duckDuckGoPage([
      { title: "Buy now", href: "https://ads.example/", snippet: "ad", ad: true },
      { title: "Real", href: "https://real.example/", snippet: "r" },
    ]);
    const page = parseDuckDuckGoHtml(html, 200);
    expect(page.kind === "results" && page.results.map((r) => r.title)).toEqual(["Real"]);
  });

  it("returns no results for a page without any", () => {
    expect(parseDuckDuckGoHtml(duckDuckGoPage([]), 200)).toEqual({ kind: "results", results: [] });
  });

  it.each([202, 403, 429])("treats HTTP %i as rate limited", (status) => {
    expect(parseDuckDuckGoHtml(duckDuckGoPage([]), status).kind).toBe("rate_limited");
  });

  it("treats the bot challenge page as rate limited", () => {
    expect(parseDuckDuckGoHtml(DDG_CHALLENGE_PAGE, 200)).toEqual({ kind: "rate_limited", reason: "challenge page" });
  });

  it("decodes redirect links and drops internal or non-http ones", () => {
    expect(decodeResultLink("//duckduckgo.com/l/?uddg=https%3A%2F%2Fa.example%2F&rut=1")).toBe("https://a.example/");
    expect(decodeResultLink("https://duckduckgo.com/y.js?ad=1")).toBeNull();
    expect(decodeResultLink("javascript:alert(1)")).toBeNull();
    expect(decodeResultLink("https://direct.example/x")).toBe("https://direct.example/x");
  });
});
