import type { CitationCheck, CitationReport } from "@/lib/protocol/citations";
import type { StoredSource } from "@/lib/protocol/sources";
import { Semaphore } from "@/lib/util/semaphore";
import { citedSentences } from "./claims";
import { missingFacts } from "./lexical";
import { findPassage } from "./passages";
import type { Verifier } from "./verifier";

/**
 * Checking an answer's citations (docs/research.md, "Checking citations"): every sentence of the
 * answer that carries `[n]`, for each n it cites, is looked up in source n's stored text by the
 * passage finder, and what the best passage lacks of the claim's numbers, dates and names is listed.
 * A passage that lacks nothing is `found`; no passage, something missing, or a number the run has
 * no source for is `not_found`. With a verifier, every `found` check is then judged by it, at most
 * `concurrency` calls at once (the `slots` shared by every check of the instance when given): its
 * verdict and reason replace `found`; a claim it could not judge stays `found`, marked `unjudged`.
 * Abortable: `signal` stops the verifier's calls and rejects. Framework-free.
 */

export interface CheckCitationsOptions {
  answer: string;
  /** The run's stored sources: what the answer's `[n]` name. */
  sources: readonly StoredSource[];
  verifier?: Verifier;
  /** Verifier calls at once (CITATION_VERIFY_CONCURRENCY); one by one when not given. */
  concurrency?: number;
  /** The slots those calls take: shared across checks to bound them on the whole instance. */
  slots?: Semaphore;
  signal?: AbortSignal;
}

/** The finder's check of one claim against one cited source. */
function findCheck(
  sentence: { claim: string; start: number; end: number },
  n: number,
  source: StoredSource | undefined,
): CitationCheck {
  const base = { sentence: sentence.claim, start: sentence.start, end: sentence.end, n };
  const match = source ? findPassage(sentence.claim, source) : null;
  if (!match) return { ...base, verdict: "not_found", passage: null, missing: [] };
  const missing = missingFacts(sentence.claim, match.text);
  return {
    ...base,
    verdict: missing.length === 0 ? "found" : "not_found",
    passage: {
      text: match.text,
      start: match.start,
      end: match.end,
      ...(match.pages ? { pages: match.pages } : {}),
      matched: match.matched,
    },
    missing,
  };
}

/** The verifier's judgement folded into a `found` check. */
async function judge(
  check: CitationCheck,
  source: StoredSource,
  verifier: Verifier,
  signal: AbortSignal | undefined,
): Promise<CitationCheck> {
  const judgement = await verifier.verify(
    { claim: check.sentence, title: source.title, passage: check.passage?.text ?? "" },
    signal,
  );
  if (!judgement.ok) return { ...check, unjudged: true };
  return {
    ...check,
    verdict: judgement.verdict,
    ...(judgement.reason ? { reason: judgement.reason } : {}),
    ...(judgement.cut ? { cut: judgement.cut } : {}),
  };
}

export async function checkCitations(options: CheckCitationsOptions): Promise<CitationReport> {
  const { verifier, signal } = options;
  signal?.throwIfAborted();
  const byNumber = new Map(options.sources.map((source) => [source.n, source]));
  const found = citedSentences(options.answer).flatMap((sentence) =>
    sentence.sources.map((n) => findCheck(sentence, n, byNumber.get(n))),
  );
  if (!verifier) return { checks: found, checkedAt: Date.now() };

  const slots = options.slots ?? new Semaphore();
  const concurrency = options.concurrency ?? 1;
  // `concurrency` workers take the claims in turn, so a long report waits on at most that many slots.
  const checks = [...found];
  let next = 0;
  const work = async () => {
    for (let index = next++; index < checks.length; index = next++) {
      const check = checks[index];
      const source = check?.verdict === "found" ? byNumber.get(check.n) : undefined;
      if (!check || !source) continue;
      const release = await slots.acquire(concurrency, signal);
      try {
        checks[index] = await judge(check, source, verifier, signal);
      } finally {
        release();
      }
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(concurrency, checks.length)) }, work));
  signal?.throwIfAborted();
  return { checks, checkedAt: Date.now(), verifierModel: verifier.model };
}
