import { createTranslator } from "use-intl";
import { describe, expect, it } from "vitest";
import type { CitationCheck, CitationReport, CitationVerdict } from "@/lib/protocol/citations";
import en from "@/messages/en.json";
import ja from "@/messages/ja.json";
import { citationSummary, summaryText } from "./citation-summary";

const check = (verdict: CitationVerdict): CitationCheck => ({
  sentence: "A.",
  start: 0,
  end: 6,
  n: 1,
  verdict,
  passage: null,
  missing: [],
});

const report = (verdicts: Record<string, number>, verifierModel?: string): CitationReport => ({
  checks: Object.entries(verdicts).flatMap(([verdict, count]) =>
    Array.from({ length: count }, () => check(verdict as CitationVerdict)),
  ),
  checkedAt: 1,
  ...(verifierModel ? { verifierModel } : {}),
});

const words = (r: CitationReport, locale: "en" | "ja" = "en") => {
  const t = createTranslator({ locale, messages: locale === "en" ? en : ja, namespace: "citations" });
  const summary = citationSummary(r);
  return summary ? summaryText(summary, t) : null;
};

describe("the answer's citation line", () => {
  it("counts the verifier's verdicts: supported of all, then partly, not supported, not found", () => {
    expect(words(report({ supported: 27, partly: 3, not_found: 1 }, "qwen3:4b"))).toBe(
      "27 of 31 citations supported · 3 partly · 1 not found",
    );
    expect(words(report({ supported: 1, unsupported: 2 }, "qwen3:4b"))).toBe(
      "1 of 3 citations supported · 2 not supported",
    );
  });

  it("when only the finder ran, says how many it found in their sources", () => {
    expect(words(report({ found: 12, not_found: 2 }))).toBe("12 of 14 citations found in their sources");
    expect(words(report({ found: 1 }))).toBe("1 of 1 citation found in their sources");
  });

  it("a check the verifier left unjudged is counted as not checked", () => {
    expect(words(report({ supported: 2, found: 1 }, "qwen3:4b"))).toBe("2 of 3 citations supported · 1 not checked");
  });

  it("says it in Japanese", () => {
    expect(words(report({ supported: 27, partly: 3, not_found: 1 }, "m"), "ja")).toBe(
      "31件の引用のうち27件に裏付けあり · 一部裏付け 3件 · 見つからない 1件",
    );
    expect(words(report({ found: 12, not_found: 2 }), "ja")).toBe("14件の引用のうち12件が出典内で見つかりました");
  });

  it("no citations: no line", () => {
    expect(words(report({}))).toBeNull();
  });
});
