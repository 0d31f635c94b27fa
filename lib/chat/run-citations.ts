import "server-only";
import { checkCitations } from "@/lib/citations/check";
import { writeWhenFree } from "@/lib/db/busy";
import { saveCitationReport } from "@/lib/db/citation-reports";
import type { Db } from "@/lib/db/client";
import { runSourcesWhole } from "@/lib/db/run-sources";
import type { CitationReport } from "@/lib/protocol/citations";

/**
 * The passage finder at the end of every run (docs/research.md, "Checking citations"): an answer
 * that cites `[n]` is checked against the sources the run stored, without a model, so each of its
 * citations shows at once whether the cited source holds the claim. A check is a courtesy to the
 * reader, never part of the run's outcome: whatever goes wrong is logged and the run ends as it would.
 */

/** A `[n]` or `[n, m]` marker: an answer without one has nothing to check, and no source is read. */
const MARKER = /\[\d+(?:\s*,\s*\d+)*\]/;

/** The finder's report on the run's answer; null when it cites nothing, the run stored no source, or the check failed. */
export async function findRunCitations(
  db: Db,
  { runId, answer }: { runId: string; answer: string },
): Promise<CitationReport | null> {
  if (!MARKER.test(answer)) return null;
  try {
    const sources = await runSourcesWhole(db, { runId });
    if (sources.length === 0) return null;
    const report = await checkCitations({ answer, sources });
    return report.checks.length > 0 ? report : null;
  } catch (error) {
    console.error(`[citations] could not check the citations of run ${runId}`, error);
    return null;
  }
}

/**
 * Stores the finder's report with the answer's message (once that is stored: the report belongs to
 * it). A busy database stores it when free; any other failure is logged, and the report was still sent.
 */
export async function storeRunCitations(
  db: Db,
  { messageId, report }: { messageId: string; report: CitationReport },
): Promise<void> {
  try {
    await writeWhenFree(() => saveCitationReport(db, { messageId, report }), `the citation report of ${messageId}`);
  } catch (error) {
    console.error(`[citations] could not store the citation report of message ${messageId}`, error);
  }
}
