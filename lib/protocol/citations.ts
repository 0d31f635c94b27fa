/**
 * What checking an answer's citations found (docs/research.md, "Checking citations"): each sentence
 * that carries `[n]` is looked up in source n's stored text by the passage finder, and, when the
 * verifier ran, judged by a model against the passage found. Stored with the answer's message and
 * shown on its citation chips. Framework-free: server, browser and import share these shapes.
 */

import { z } from "./zod";

const count = z.number().int().min(0);

/**
 * - `found`: the passage finder found a passage that holds the claim's words, numbers and names;
 *   no model has judged it yet.
 * - `not_found`: no passage of the source holds the claim (or the source is not stored), or a
 *   number, date or name of the claim is missing from the best one (`missing`).
 * - `supported` / `partly` / `unsupported`: the verifier's judgement of the claim against the passage.
 */
export const citationVerdictSchema = z.enum(["found", "not_found", "supported", "partly", "unsupported"]);
export type CitationVerdict = z.infer<typeof citationVerdictSchema>;

/** The passage of the source that best matches the claim. */
export const citedPassageSchema = z.object({
  text: z.string(),
  /** Where the passage lies in the stored source's text. */
  start: count,
  end: count,
  /** The PDF pages the passage came from, when the source is a PDF. */
  pages: z.object({ first: count, last: count }).optional(),
  /** The claim's terms found in the passage, as written in the passage: the UI marks them. */
  matched: z.array(z.string()),
});
export type CitedPassage = z.infer<typeof citedPassageSchema>;

/** One citation: a sentence of the answer and one source number it cites. */
export const citationCheckSchema = z.object({
  /** The claim: the sentence without its markers. */
  sentence: z.string(),
  /** Where the sentence (markers included) lies in the answer's text. */
  start: count,
  end: count,
  /** The cited source's number. */
  n: z.number().int().min(1),
  verdict: citationVerdictSchema,
  passage: citedPassageSchema.nullable(),
  /** Numbers, dates and names of the claim that the passage does not contain. */
  missing: z.array(z.string()),
  /** The verifier's one-sentence reason, when it judged. */
  reason: z.string().optional(),
  /** The verifier's request (claim, title, passage) was cut to fit its model's context: characters kept of all. */
  cut: z.object({ kept: count, total: count }).optional(),
  /** The verifier was asked and gave no verdict (its replies could not be read): the finder's verdict stands. */
  unjudged: z.literal(true).optional(),
});
export type CitationCheck = z.infer<typeof citationCheckSchema>;

/** Every citation of one answer, as last checked. */
export const citationReportSchema = z.object({
  checks: z.array(citationCheckSchema),
  checkedAt: z.number(),
  /** The model that judged the checks whose verdict is the verifier's; absent when only the finder ran. */
  verifierModel: z.string().optional(),
});
export type CitationReport = z.infer<typeof citationReportSchema>;

/** How many citations have each verdict: the report's header line. */
export function verdictCounts(report: CitationReport): Record<CitationVerdict, number> {
  const counts: Record<CitationVerdict, number> = { found: 0, not_found: 0, supported: 0, partly: 0, unsupported: 0 };
  for (const check of report.checks) counts[check.verdict] += 1;
  return counts;
}
