/**
 * The answer's citation header (docs/research.md, "Checking citations"): how many citations the
 * verifier found supported, and how many partly, not supported, not found; or, when only the passage
 * finder ran, how many it found in their sources.
 */
import { type CitationReport, verdictCounts } from "@/lib/protocol/citations";

export type CitationSummary =
  | { kind: "verified"; total: number; supported: number; parts: SummaryPart[] }
  | { kind: "found"; total: number; found: number };

/** A count after the first, said only when it is not zero; `unchecked`: left `found`, the verifier did not judge it. */
export interface SummaryPart {
  key: "partly" | "unsupported" | "notFound" | "unchecked";
  count: number;
}

/** Null when the answer has no citation to speak of. */
export function citationSummary(report: CitationReport): CitationSummary | null {
  const total = report.checks.length;
  if (total === 0) return null;
  const counts = verdictCounts(report);
  const judged = counts.supported + counts.partly + counts.unsupported > 0 || report.verifierModel !== undefined;
  if (!judged) return { kind: "found", total, found: counts.found };
  const parts: SummaryPart[] = [
    { key: "partly", count: counts.partly },
    { key: "unsupported", count: counts.unsupported },
    { key: "notFound", count: counts.not_found },
    { key: "unchecked", count: counts.found },
  ];
  return { kind: "verified", total, supported: counts.supported, parts: parts.filter((part) => part.count > 0) };
}

/** The header's words, from the `citations.summary` messages. */
export function summaryText(
  summary: CitationSummary,
  t: (key: `summary.${"supported" | "found" | SummaryPart["key"]}`, values: Record<string, number>) => string,
): string {
  if (summary.kind === "found") return t("summary.found", { found: summary.found, total: summary.total });
  return [
    t("summary.supported", { supported: summary.supported, total: summary.total }),
    ...summary.parts.map((part) => t(`summary.${part.key}`, { count: part.count })),
  ].join(" · ");
}
