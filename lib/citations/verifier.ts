import { type StructuredLevel, structuredLlmCall } from "@/lib/agent/structured-call";
import type { LLM } from "@/lib/llm/types";
import { detectLanguage, prompt } from "@/lib/prompts";
import type { CitationVerdict } from "@/lib/protocol/citations";

/**
 * The verifier (docs/research.md, "Checking citations"): one structured model call per claim, the
 * claim, the cited source's title and the passage the finder chose in, a verdict and a one-sentence
 * reason out. Like every model call it fits the model's context (docs/engine.md, "One context
 * budget for every call"): a passage too long is cut head and tail, and the judgement says how much
 * of the request was kept. A reply that gives no verdict is asked again (the structured call's
 * levels and retries); after that the claim is not judged, and says so, rather than given a verdict
 * nobody made. Framework-free: the model is passed in.
 */

export type JudgedVerdict = Extract<CitationVerdict, "supported" | "partly" | "unsupported">;

export interface ClaimToVerify {
  /** The claim: the answer's sentence without its markers. */
  claim: string;
  /** The cited source's title. */
  title: string;
  /** The passage of the source the finder chose for the claim. */
  passage: string;
}

/** What the verifier made of one claim. */
export type Judgement =
  | {
      ok: true;
      verdict: JudgedVerdict;
      reason: string;
      /** The request (claim, title, passage) was cut to fit the model's context: characters kept of all. */
      cut?: { kept: number; total: number };
      structured: { level: StructuredLevel; calls: number };
    }
  | {
      ok: false;
      /** Why there is no verdict, for the log (English). */
      problem: string;
    };

export interface Verifier {
  /** The model that judges: the report's `verifierModel`. */
  readonly model: string;
  /** Judges one claim; throws only when `signal` aborts it. */
  verify(claim: ClaimToVerify, signal?: AbortSignal): Promise<Judgement>;
}

const schema = {
  type: "object",
  properties: {
    verdict: { type: "string", enum: ["supported", "partly", "unsupported"] },
    reason: { type: "string" },
  },
  required: ["verdict", "reason"],
};

const VERDICTS: Record<string, JudgedVerdict> = {
  supported: "supported",
  partly: "partly",
  partial: "partly",
  partially_supported: "partly",
  unsupported: "unsupported",
  not_supported: "unsupported",
};

/** The verdict of a reply's object, in the few spellings models use for the three; null for anything else. */
export function parseJudgement(raw: Record<string, unknown>): { verdict: JudgedVerdict; reason: string } | null {
  if (typeof raw.verdict !== "string") return null;
  const verdict =
    VERDICTS[
      raw.verdict
        .trim()
        .toLowerCase()
        .replace(/[\s-]+/g, "_")
    ];
  if (!verdict) return null;
  return { verdict, reason: typeof raw.reason === "string" ? raw.reason.trim() : "" };
}

/** A verifier that asks `llm` (the fast role's model, docs/research.md "Checking citations"). */
export function modelVerifier(llm: LLM): Verifier {
  return {
    model: llm.model,
    async verify({ claim, title, passage }, signal) {
      const language = detectLanguage(claim);
      let cut: { kept: number; total: number } | undefined;
      try {
        const result = await structuredLlmCall({
          llm,
          language,
          signal,
          name: "judge_citation",
          description: "Whether the passage supports the claim",
          schema,
          messages: [
            { role: "system", content: prompt(language, "citation_verifier_system") },
            { role: "user", content: prompt(language, "citation_verifier_user", { claim, title, passage }) },
          ],
          parseFn: parseJudgement,
          onCut: (made) => {
            cut = { kept: made.cut.content.length, total: made.original.content.length };
          },
        });
        return {
          ok: true,
          ...result.value,
          ...(cut ? { cut } : {}),
          structured: { level: result.level, calls: result.llmCalls },
        };
      } catch (error) {
        if (signal?.aborted) throw error;
        return { ok: false, problem: error instanceof Error ? error.message : String(error) };
      }
    },
  };
}
