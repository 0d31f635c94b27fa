import { describe, expect, it } from "vitest";
import { type CitationCheck, citationReportSchema, verdictCounts } from "./citations";

const check = (verdict: CitationCheck["verdict"]): CitationCheck => ({
  sentence: "The bridge opened in 1932.",
  start: 0,
  end: 30,
  n: 1,
  verdict,
  passage: null,
  missing: [],
});

describe("citation reports", () => {
  it("counts every verdict once for the report's header", () => {
    const report = {
      checks: ["supported", "supported", "partly", "not_found"].map((v) => check(v as never)),
      checkedAt: 1,
    };
    expect(verdictCounts(report)).toEqual({ found: 0, not_found: 1, supported: 2, partly: 1, unsupported: 0 });
  });

  it("refuses a check whose verdict is not one of the five", () => {
    const parsed = citationReportSchema.safeParse({ checks: [{ ...check("found"), verdict: "maybe" }], checkedAt: 1 });
    expect(parsed.success).toBe(false);
  });
});
