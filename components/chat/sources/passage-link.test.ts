import { describe, expect, it } from "vitest";
import type { CitedPassage } from "@/lib/protocol/citations";
import { fragmentStart, fragmentTerm, pageHref, passageHref, textFragmentHref } from "./passage-link";

const passage = (text: string, extra: Partial<CitedPassage> = {}): CitedPassage => ({
  text,
  start: 0,
  end: text.length,
  matched: [],
  ...extra,
});

describe("where a cited passage opens", () => {
  it("a PDF passage opens at its first page, replacing any fragment the URL had", () => {
    expect(pageHref("https://example.com/a.pdf#toc", 3)).toBe("https://example.com/a.pdf#page=3");
    const pages = passage("Costs rose.", { pages: { first: 4, last: 5 } });
    expect(passageHref("https://example.com/a.pdf", "https://example.com/a.pdf", pages)).toBe(
      "https://example.com/a.pdf#page=4",
    );
    expect(passageHref("attachment:f1", "/api/conversations/c1/files/f1", pages)).toBe(
      "/api/conversations/c1/files/f1#page=4",
    );
  });

  it("a PDF or attached file whose page is not known opens as it is", () => {
    expect(passageHref("https://example.com/A.PDF?x=1", "https://example.com/A.PDF?x=1", passage("Text"))).toBe(
      "https://example.com/A.PDF?x=1",
    );
    expect(passageHref("attachment:f1", "/api/conversations/c1/files/f1", passage("Text"))).toBe(
      "/api/conversations/c1/files/f1",
    );
  });

  it("a web page opens with a text fragment of the passage's first words", () => {
    const text = "The quokka weighs between 2.5 and 5 kg, about as much as a house cat.";
    expect(passageHref("https://example.com/q", "https://example.com/q#top", passage(text))).toBe(
      "https://example.com/q#:~:text=The%20quokka%20weighs%20between%202.5%20and%205%20kg%2C",
    );
  });

  it("no passage: the source itself", () => {
    expect(passageHref("https://example.com/q", "https://example.com/q", null)).toBe("https://example.com/q");
  });
});

describe("text fragments", () => {
  it("percent-encodes a term as the text-fragment spec asks: dash, comma and ampersand too", () => {
    expect(fragmentTerm("well-known, R&D 100%")).toBe("well%2Dknown%2C%20R%26D%20100%25");
  });

  it("names the words the page shows: Markdown marks and link targets dropped, spaces collapsed", () => {
    expect(fragmentStart("## Habitat\n\nOn **Rottnest** [island](https://x.test/i) |  only", false)).toBe(
      "Habitat On Rottnest island only",
    );
  });

  it("drops a word the passage cut at its start", () => {
    expect(fragmentStart("kka weighs little", true)).toBe("weighs little");
  });

  it("cuts unspaced Japanese text to its first characters", () => {
    const text =
      "クオッカは西オーストラリア州のロットネスト島に多く生息している小型の有袋類で、体重は二・五から五キログラムである。";
    const start = fragmentStart(text, false);
    expect([...start]).toHaveLength(40);
    expect(text.startsWith(start)).toBe(true);
    expect(textFragmentHref("https://example.jp/q", text)).toBe(
      `https://example.jp/q#:~:text=${encodeURIComponent(start)}`,
    );
  });
});
