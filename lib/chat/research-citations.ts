import "server-only";
import { noticeText } from "@/lib/agent/notices";
import { checkCitations } from "@/lib/citations/check";
import { modelVerifier } from "@/lib/citations/verifier";
import { type Db, trackBackground } from "@/lib/db/client";
import { runSourcesWhole } from "@/lib/db/run-sources";
import type { Config } from "@/lib/env-config";
import { fileLimits } from "@/lib/files/quota";
import { type KeptSources, keepResearchSources } from "@/lib/files/research-sources";
import type { LLM } from "@/lib/llm/types";
import type { PromptLanguage } from "@/lib/prompts";
import type { CitationReport } from "@/lib/protocol/citations";
import type { StoredSource } from "@/lib/protocol/sources";
import type { LiveRun } from "./live-run";
import { citationVerifySlots } from "./verify-slots";

/**
 * A research run's verification (docs/research.md, "Research mode"): once the report is written,
 * every citation is checked against the run's stored sources by the passage finder and then by the
 * verifier on the fast role's model, and the report goes out as the `citations` event. The run's
 * end stores that report with the answer in place of the finder's own check, so the report is
 * checked once. Its web sources are kept in the conversation's library then, too, and a quota that
 * refuses some of them is told in the run's trail as a `sources_not_kept` notice, stored with the
 * run. A check that fails (not a Stop) is logged and leaves the run to the finder; a Stop while the
 * verifier works keeps the finder's check of the claims (and leaves a refusal to the log).
 */
export interface ResearchVerification {
  /** `claimsEnd`: the report's references begin there; they are not checked. */
  verify: (report: string, signal: AbortSignal, claimsEnd: number) => Promise<void>;
  /** The verified report, once the check is done. */
  readonly checked: CitationReport | undefined;
}

/**
 * The run's web sources into the conversation's library, beside the check (lib/files/research-sources.ts):
 * what was kept, or null when keeping failed (logged).
 */
function keepInLibrary(db: Db, live: LiveRun, sources: StoredSource[], config: Config): Promise<KeptSources | null> {
  const keeping = keepResearchSources(db, { conversationId: live.conversationId, sources, limits: fileLimits(config) })
    .then((kept) => {
      const { refused } = kept;
      if (refused) {
        console.warn(
          `[research] run ${live.runId}: ${refused.notKept} sources not kept in the library (${refused.quota} quota)`,
        );
      }
      return kept;
    })
    .catch((error: unknown) => {
      console.error(`[research] run ${live.runId}: keeping its sources failed`, error);
      return null;
    });
  trackBackground(db, keeping);
  return keeping;
}

/** Sources a quota left out of the library, told in the run's trail (never only logged). */
function tellNotKept(live: LiveRun, language: PromptLanguage, kept: KeptSources | null): void {
  if (!kept?.refused) return;
  const about = {
    code: "sources_not_kept",
    kept: kept.kept,
    notKept: kept.refused.notKept,
    quota: kept.refused.quota,
  } as const;
  live.emitStep({ type: "notice", iteration: 0, text: noticeText(language, about), about }, Date.now());
}

export function researchVerification(
  db: Db,
  {
    live,
    verifierLlm,
    config,
    language,
  }: { live: LiveRun; verifierLlm: LLM; config: Config; language: PromptLanguage },
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
      let keeping: Promise<KeptSources | null> | undefined;
      try {
        // Every read's part is stored with its step's event: the check reads them all.
        await live.writesSettled();
        sources = await runSourcesWhole(db, { runId: live.runId });
        keeping = keepInLibrary(db, live, sources, config);
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
        if (signal.aborted) {
          // Stopped while verifying: the finder's check of the claims (no model) stands for the report.
          if (sources.length > 0) {
            const found = await checkCitations({ answer, sources });
            live.emit("citations", found);
            checked = found;
          }
          throw error;
        }
        console.error(`[research] could not verify the citations of run ${live.runId}`, error);
      }
      // Before the run ends, so the notice is one of its stored events.
      if (keeping) tellNotKept(live, language, await keeping);
    },
  };
}
