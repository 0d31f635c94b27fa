import type { LLM, Usage } from "@/lib/llm/types";
import { type PromptLanguage, prompt } from "@/lib/prompts";
import type { MessageCut } from "../context-guard";
import { structuredLlmCall } from "../structured-call";

/** The analyzer: one structured call judging whether the steps' results achieve the goal. */

export interface Analysis {
  achieved: boolean;
  confidence: number;
  finalAnswer: string | null;
  reasoning: string;
}

const schema = {
  type: "object",
  properties: {
    achieved: { type: "boolean" },
    confidence: { type: "number", minimum: 0, maximum: 1 },
    final_answer: { type: ["string", "null"] },
    reasoning: { type: "string" },
  },
  required: ["achieved", "confidence", "reasoning"],
};

export function parseAnalysis(raw: Record<string, unknown>): Analysis | null {
  if (typeof raw.achieved !== "boolean") return null;
  const confidence = typeof raw.confidence === "number" && Number.isFinite(raw.confidence) ? raw.confidence : 0;
  const finalAnswer = typeof raw.final_answer === "string" && raw.final_answer.trim() ? raw.final_answer.trim() : null;
  return {
    achieved: raw.achieved,
    confidence: Math.min(1, Math.max(0, confidence)),
    finalAnswer,
    reasoning: typeof raw.reasoning === "string" ? raw.reasoning : "",
  };
}

/** An analysis that failed does not start another round: synthesis answers from what was found. */
const UNJUDGED: Analysis = { achieved: true, confidence: 0, finalAnswer: null, reasoning: "" };

export async function analyze({
  llm,
  goal,
  results,
  followUps,
  language,
  signal,
  onCut,
}: {
  llm: LLM;
  goal: string;
  /** The steps' results, formatted. */
  results: string;
  /** What the user added while the steps ran. */
  followUps: string[];
  language: PromptLanguage;
  signal: AbortSignal;
  /** The request had to be cut to fit the model's context. */
  onCut?: (cut: MessageCut) => void;
}): Promise<{ analysis: Analysis; usage: Usage }> {
  const followups = followUps.length
    ? prompt(language, "dag_followups", { text: followUps.map((text) => `- ${text}`).join("\n") })
    : "";
  const result = await structuredLlmCall<Analysis>({
    llm,
    language,
    signal,
    schema,
    name: "judge_results",
    onCut,
    description: "Whether the results achieve the goal",
    messages: [
      { role: "system", content: prompt(language, "dag_analyzer_system") },
      { role: "user", content: prompt(language, "dag_analyzer_user", { goal, followups, results }) },
    ],
    parseFn: parseAnalysis,
    defaultValue: UNJUDGED,
  });
  return { analysis: result.value, usage: result.usage };
}
