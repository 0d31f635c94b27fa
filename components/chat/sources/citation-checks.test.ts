import { describe, expect, it } from "vitest";
import type { CitationCheck, CitationReport } from "@/lib/protocol/citations";
import { chipTone, citationLookup } from "./citation-checks";

const answer = "Quokkas weigh 2.5 kg [1]. They live on Rottnest [2][1].";
const sentence2 = answer.indexOf("They");

const check = (n: number, start: number, end: number, verdict: CitationCheck["verdict"]): CitationCheck => ({
  sentence: "s",
  start,
  end,
  n,
  verdict,
  passage: null,
  missing: [],
});

const report: CitationReport = {
  checks: [
    check(1, 0, sentence2 - 1, "supported"),
    check(2, sentence2, answer.length, "partly"),
    check(1, sentence2, answer.length, "unsupported"),
  ],
  checkedAt: 1,
};

describe("a chip's check, by its marker's place", () => {
  it("finds the check for n whose sentence holds the marker", () => {
    const lookup = citationLookup(report, answer, answer);
    expect(lookup(answer.indexOf("[1]"), 1)?.verdict).toBe("supported");
    expect(lookup(answer.indexOf("[2]"), 2)?.verdict).toBe("partly");
    expect(lookup(answer.lastIndexOf("[1]"), 1)?.verdict).toBe("unsupported");
  });

  it("a marker of another number than the check's, or outside every sentence checked, has none", () => {
    const lookup = citationLookup(report, answer, answer);
    expect(lookup(answer.indexOf("[1]"), 2)).toBeNull();
    expect(
      citationLookup({ ...report, checks: report.checks.slice(1) }, answer, answer)(answer.indexOf("[1]"), 1),
    ).toBeNull();
  });

  it("maps a marker of the text drawn to the stored answer's place when the drawn text is longer", () => {
    const drawn = `Quokkas (see [a file](/api/conversations/c1/files/f1)) weigh 2.5 kg [1]. They live on Rottnest [2][1].`;
    const lookup = citationLookup(report, answer, drawn);
    expect(lookup(drawn.indexOf("[1]"), 1)?.verdict).toBe("supported");
    expect(lookup(drawn.lastIndexOf("[1]"), 1)?.verdict).toBe("unsupported");
  });

  it("tolerates an offset a few characters off (an escape before the marker)", () => {
    // "\\*" is one character of its text node: the marker's offset comes out one short.
    const escaped = "Stars \\* and more [2][1].";
    const checks = [check(2, 0, escaped.length, "partly"), check(1, 0, escaped.length, "supported")];
    const lookup = citationLookup({ checks, checkedAt: 1 }, escaped, escaped);
    expect(lookup(escaped.indexOf("[1]") - 1, 1)?.verdict).toBe("supported");
    expect(lookup(escaped.indexOf("[2]") - 1, 2)?.verdict).toBe("partly");
  });

  it("colours not found as not supported", () => {
    expect(chipTone("not_found")).toBe("unsupported");
    expect(chipTone("found")).toBe("found");
  });
});
