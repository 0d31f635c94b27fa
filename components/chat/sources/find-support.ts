/**
 * "Find support" under a claim its source does not hold (docs/research.md, "Checking citations"):
 * a short follow-up turn after the answer, a normal tool-using run, whose question asks for sources
 * that support or refute that one claim, naming the source it cited so the run looks beyond it.
 */
import type { CitationCheck, CitationVerdict } from "@/lib/protocol/citations";
import type { Source } from "@/lib/protocol/run-events";
import { withoutBidiControls } from "@/lib/text/bidi-controls";
import type { SendInput } from "../use-chat-runs";

/** The verdicts whose claim wants other sources: the source cited does not (fully) hold it. */
const WANTS_SUPPORT: ReadonlySet<CitationVerdict> = new Set(["unsupported", "partly", "not_found"]);

export function wantsSupport(verdict: CitationVerdict): boolean {
  return WANTS_SUPPORT.has(verdict);
}

/** The `citations.findSupport` messages, as `useTranslations("citations")` or `createTranslator` gives them. */
type Translate = (
  key: "findSupport.question" | "findSupport.cited" | "findSupport.citedNamed",
  values: Record<string, string | number>,
) => string;

/**
 * The question, in the user's language: the claim quoted, then the source it cited (its number,
 * title and, for a web page, URL; an attached file by its name alone — its address means nothing to the model).
 */
export function findSupportQuestion(check: CitationCheck, source: Source | null, t: Translate): string {
  const web = source !== null && !source.url.startsWith("attachment:");
  const cited = source
    ? t("findSupport.citedNamed", {
        n: check.n,
        title: withoutBidiControls(source.title),
        where: web ? source.url : "none",
      })
    : t("findSupport.cited", { n: check.n });
  return t("findSupport.question", { claim: check.sentence.trim(), cited });
}

/**
 * The turn it starts: after the answer `answerId` (a branch there when the answer is not the last),
 * in the conversation's own mode (no `mode`: a turn that named one would change the conversation's
 * "Plan first"), never research — it is one claim. `after`
 * are the stored messages that follow the answer on the branch shown: hidden until the new turn is stored.
 */
export function findSupportInput({
  conversationId,
  model,
  answerId,
  question,
  after,
}: {
  conversationId: string;
  model?: string;
  answerId: string;
  question: string;
  after: string[];
}): SendInput {
  return {
    conversationId,
    ...(model ? { model } : {}),
    message: question,
    parentId: answerId,
    ...(after.length > 0 ? { replaces: after } : {}),
  };
}
