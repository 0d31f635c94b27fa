import { describe, expect, it } from "vitest";
import { citedSentences } from "./claims";

const claims = (answer: string) => citedSentences(answer).map((sentence) => sentence.claim);

describe('citedSentences (docs/research.md, "Checking citations")', () => {
  it("finds each sentence that carries markers, with its claim, its place in the answer (markers included) and its sources", () => {
    const answer = "jq is a JSON processor [1]. It has no dependencies. It is written in C [2][3].";
    const second = answer.indexOf("It is written");
    expect(citedSentences(answer)).toEqual([
      { claim: "jq is a JSON processor.", start: 0, end: "jq is a JSON processor [1].".length, sources: [1] },
      { claim: "It is written in C.", start: second, end: answer.length, sources: [2, 3] },
    ]);
  });

  it("reads every marker form: [1], [1][2], [1, 2], [1,3], a marker written as a link, each source once", () => {
    const sources = (answer: string) => citedSentences(answer).map((sentence) => sentence.sources);
    expect(sources("A [1].")).toEqual([[1]]);
    expect(sources("A [1][2].")).toEqual([[1, 2]]);
    expect(sources("A [1, 2].")).toEqual([[1, 2]]);
    expect(sources("A [1,3] and again [3].")).toEqual([[1, 3]]);
    expect(sources("A [4](https://example.org/page).")).toEqual([[4]]);
  });

  it("gives a marker written after the sentence's end to that sentence", () => {
    const sentences = citedSentences("The company was founded in 1932. [1] It grew. [2]");
    expect(sentences.map((s) => [s.claim, s.sources])).toEqual([
      ["The company was founded in 1932.", [1]],
      ["It grew.", [2]],
    ]);
    expect(sentences[0]?.end).toBe("The company was founded in 1932. [1]".length);
  });

  it("does not end a sentence at e.g., U.S., decimals, version numbers or URLs", () => {
    expect(
      claims(
        "Tools, e.g. jq, read JSON [1]. The U.S. office measured 3.14 units [2]. Version 1.6.2 of jq is in Debian [3]. See https://jqlang.org/manual/v1.7. for details [4].",
      ),
    ).toEqual([
      "Tools, e.g. jq, read JSON.",
      "The U.S. office measured 3.14 units.",
      "Version 1.6.2 of jq is in Debian.",
      "See https://jqlang.org/manual/v1.7. for details.",
    ]);
  });

  it("ends Japanese sentences at 。！？", () => {
    expect(
      citedSentences("下人が雨やみを待っていた[1]。門の下には誰もいない。[2]本当か？[3]").map((s) => [
        s.claim,
        s.sources,
      ]),
    ).toEqual([
      ["下人が雨やみを待っていた。", [1]],
      ["門の下には誰もいない。", [2]],
      ["本当か？", [3]],
    ]);
  });

  it("removes markers and Markdown emphasis from the claim, and keeps the words of links and code spans", () => {
    expect(claims("**jq** is *very* fast with `--tab` and [the manual](https://x.org) [1].")).toEqual([
      "jq is very fast with --tab and the manual.",
    ]);
    expect(claims("snake_case names stay as they are [1].")).toEqual(["snake_case names stay as they are."]);
  });

  it("reads list items, headings and table cells as sentences of their own", () => {
    const answer = [
      "## Packages [1]",
      "",
      "- jq reads JSON [2]",
      "- it writes JSON",
      "  on standard output [3]",
      "1. groff typesets [4]",
      "",
      "| tool | version |",
      "| --- | --- |",
      "| jq [5] | 1.6 [6] |",
    ].join("\n");
    expect(citedSentences(answer).map((s) => [s.claim, s.sources])).toEqual([
      ["Packages", [1]],
      ["jq reads JSON", [2]],
      ["it writes JSON on standard output", [3]],
      ["groff typesets", [4]],
      ["jq", [5]],
      ["1.6", [6]],
    ]);
  });

  it("never reads code blocks or code spans as claims, nor markers inside them", () => {
    const answer = [
      "Run it [1].",
      "",
      "```",
      "echo 'a [2]. b [3].'",
      "```",
      "",
      "`x [4]` alone",
      "Then `y[5]` stays.",
    ].join("\n");
    expect(citedSentences(answer).map((s) => s.sources)).toEqual([[1]]);
  });

  it("reads no line of a reference list as a claim: a line that opens with a marker is an entry", () => {
    const answer = [
      "The bridge opened in 1932 [1]. Its arch spans 503 metres [2].",
      "",
      "## References",
      "",
      "[1] Sydney Harbour Bridge. https://example.org/bridge (accessed 2026-12-02)",
      "[2] The arch. https://example.org/arch (accessed 2026-12-02)",
      "",
      "- [3] A listed entry. https://example.org/three",
      "1. [4] 参考資料。https://example.org/four",
      "The tower stands [5].",
      "[5]",
    ].join("\n");
    expect(citedSentences(answer).map((s) => s.claim)).toEqual([
      "The bridge opened in 1932.",
      "Its arch spans 503 metres.",
      "The tower stands.",
    ]);
  });

  it("finds nothing in an answer without markers", () => {
    expect(citedSentences("No citations here. None at all.")).toEqual([]);
  });
});
