import "server-only";
import { checkCitations } from "@/lib/citations/check";
import { modelVerifier } from "@/lib/citations/verifier";
import { type Db, trackBackground } from "@/lib/db/client";
import { runSourcesWhole } from "@/lib/db/run-sources";
import type { Config } from "@/lib/env-config";
import { fileLimits } from "@/lib/files/quota";
import { keepResearchSources } from "@/lib/files/research-sources";
import type { LLM } from "@/lib/llm/types";
import type { CitationReport } from "@/lib/protocol/citations";
import type { StoredSource } from "@/lib/protocol/sources";
import type { LiveRun } from "./live-run";
import { citationVerifySlots } from "./verify-slots";

/**
 * A research run's verification (docs/research.md, "Research mode"): once the report is written,
 * every citation is checked against the run's stored sources by the passage finder and then by the
 * verifier on the fast role's model, and the report goes out as the `citations` event. The run's
 * end stores that report with the answer in place of the finder's own check, so the report is
 * checked once. Its web sources are kept in the conversation's library then, too. A check that
 * fails (not a Stop) is logged and leaves the run to the finder; a Stop while the verifier works
 * keeps the finder's check of the claims.
 */
export interface ResearchVerification {
  /** `claimsEnd`: the report's references begin there; they are not checked. */
  verify: (report: string, signal: AbortSignal, claimsEnd: number) => Promise<void>;
  /** The verified report, once the check is done. */
  readonly checked: CitationReport | undefined;
}

/** The run's web sources into the conversation's library, in the background (lib/files/research-sources.ts). */
function keepInLibrary(db: Db, live: LiveRun, sources: StoredSource[], config: Config): void {
  const kept = keepResearchSources(db, { conversationId: live.conversationId, sources, limits: fileLimits(config) })
    .then(({ refused }) => {
      if (refused) console.warn(`[research] run ${live.runId}: sources not all kept in the library (${refused} quota)`);
    })
    .catch((error: unknown) => console.error(`[research] run ${live.runId}: keeping its sources failed`, error));
  trackBackground(db, kept);
}

export function researchVerification(
  db: Db,
  { live, verifierLlm, config }: { live: LiveRun; verifierLlm: LLM; config: Config },
): ResearchVerification {
  let checked: CitationReport | undefined;
  return {
    get checked() {
      return checked;
    },
    async verify(report, signal, claimsEnd) {
      // The claims are a prefix of the report: each check's offsets are the stored answer's.
      const answer = report.slice(0, claimsEnd);
      let sources: StoredSource[] = [];
      try {
        // Every read's part is stored with its step's event: the check reads them all.
        await live.writesSettled();
        sources = await runSourcesWhole(db, { runId: live.runId });
        keepInLibrary(db, live, sources, config);
        const result = await checkCitations({
          answer,
          sources,
          verifier: modelVerifier(verifierLlm),
          concurrency: config.CITATION_VERIFY_CONCURRENCY,
          slots: citationVerifySlots(),
          signal,
        });
        live.emit("citations", result);
        checked = result;
      } catch (error) {
        if (!signal.aborted) {
          console.error(`[research] could not verify the citations of run ${live.runId}`, error);
          return;
        }
        // Stopped while verifying: the finder's check of the claims (no model) stands for the report.
        if (sources.length > 0) {
          const found = await checkCitations({ answer, sources });
          live.emit("citations", found);
          checked = found;
        }
        throw error;
      }
    },
  };
}
