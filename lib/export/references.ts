import { citedSentences } from "@/lib/citations/claims";
import { prompt } from "@/lib/prompts";
import { type CitationReport, type CitationVerdict, verdictCounts } from "@/lib/protocol/citations";

/**
 * An answer's references for its exports (docs/research.md, "Exports"): the run's sources the
 * answer cites, by number, each with when it was read and what checking its citations found.
 * Framework-free: the Markdown and Word exports render the same list.
 */

/** A source of the run as the exports list it. */
export interface ReferenceSource {
  n: number;
  url: string;
  title: string;
  /** When the run first read it (epoch ms): the reference's "accessed" date. */
  retrievedAt: number;
}

export interface Reference extends ReferenceSource {
  /** How many of the answer's citations of it have each verdict; empty when none was checked. */
  verdicts: Partial<Record<CitationVerdict, number>>;
}

/** The source numbers the answer cites, each once, in number order. */
export function citedNumbers(answer: string): number[] {
  const numbers = new Set(citedSentences(answer).flatMap((sentence) => sentence.sources));
  return [...numbers].sort((a, b) => a - b);
}

/**
 * The sources the answer cites, in number order, with their citations' verdicts from the report;
 * a number the run has no source for is left out (nothing to list), as is a source never cited.
 */
export function answerReferences(
  answer: string,
  sources: readonly ReferenceSource[],
  report?: CitationReport | null,
): Reference[] {
  const byNumber = new Map(sources.map((source) => [source.n, source]));
  return citedNumbers(answer).flatMap((n) => {
    const source = byNumber.get(n);
    if (!source) return [];
    const verdicts: Reference["verdicts"] = {};
    for (const check of report?.checks ?? []) {
      if (check.n === n) verdicts[check.verdict] = (verdicts[check.verdict] ?? 0) + 1;
    }
    const { url, title, retrievedAt } = source;
    return [{ n, url, title, retrievedAt, verdicts }];
  });
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/** The references section a research report's writer ends it with (lib/agent/research/write.ts), in either language. */
const WRITTEN_REFERENCES = new RegExp(
  `(?:^|\\n)## (?:${(["en", "ja"] as const).map((language) => escapeRegExp(prompt(language, "research_references_heading"))).join("|")})\\n(?![\\s\\S]*\\n## )[\\s\\S]*$`,
);

/**
 * The answer as an export shows it, and its references. A research report ends with the references
 * its writer listed: the export lists them itself (with the verdicts), so that section is left out —
 * unless the run's stored sources give no reference to list in its place.
 */
export function answerWithReferences(
  answer: string,
  {
    mode,
    sources,
    report,
  }: { mode: string | null; sources: readonly ReferenceSource[]; report?: CitationReport | null },
): { content: string; references: Reference[] } {
  if (mode === "research") {
    const body = answer.replace(WRITTEN_REFERENCES, "").trimEnd();
    const references = answerReferences(body, sources, report);
    if (body !== answer.trimEnd() && references.length > 0) return { content: body, references };
  }
  return { content: answer, references: answerReferences(answer, sources, report) };
}

const VERDICT_WORDS: Record<CitationVerdict, string> = {
  supported: "supported",
  partly: "partly supported",
  unsupported: "not supported",
  found: "found in the source, not judged",
  not_found: "not found in the source",
};

/** "2 supported, 1 not found in the source"; empty when no citation was checked. */
export function verdictNote(verdicts: Reference["verdicts"]): string {
  return (Object.keys(VERDICT_WORDS) as CitationVerdict[])
    .flatMap((verdict) => (verdicts[verdict] ? [`${verdicts[verdict]} ${VERDICT_WORDS[verdict]}`] : []))
    .join(", ");
}

/** The date a source was read, as references give it (UTC). */
export const accessedDate = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/** An attachment's file id, when the source is one of the conversation's files. */
export const attachmentId = (url: string) => (url.startsWith("attachment:") ? url.slice("attachment:".length) : null);

/**
 * The report's header line: "3 of 4 citations supported · 1 not found in the source" once the
 * verifier judged, "3 of 4 citations found in their sources" when only the passage finder ran.
 */
export function citationSummary(report: CitationReport): string {
  const counts = verdictCounts(report);
  const total = report.checks.length;
  const judged = counts.supported + counts.partly + counts.unsupported > 0 || report.verifierModel !== undefined;
  if (!judged) return `${counts.found} of ${total} citations found in their sources`;
  const rest = (["partly", "unsupported", "not_found", "found"] as const).flatMap((verdict) =>
    counts[verdict] ? [`${counts[verdict]} ${VERDICT_WORDS[verdict]}`] : [],
  );
  return [`${counts.supported} of ${total} citations supported`, ...rest].join(" · ");
}
