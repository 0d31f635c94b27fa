import type { ChatMessage, LLM, Usage } from "@/lib/llm/types";
import { type PromptLanguage, prompt } from "@/lib/prompts";
import {
  RESEARCH_MAX_CLARIFYING,
  RESEARCH_MAX_SECTIONS,
  type ResearchBriefEvent,
  researchBriefSchema,
} from "@/lib/protocol/research";
import type { StructuredRecord } from "@/lib/protocol/run-events";
import type { MessageCut } from "../context-guard";
import { structuredLlmCall } from "../structured-call";

/**
 * The brief (docs/research.md, "Research mode"): one structured call of the reasoning role's model
 * through the context budget turns the question and the conversation before it into a goal, a scope
 * and 3 to 8 sections with their questions — or, when the request is too vague and asking is
 * allowed, into at most 3 clarifying questions. A reply that is neither drops to the next level of
 * the structured call; when no level gives one, the call throws and the run fails saying so.
 */

const schema = {
  type: "object",
  properties: {
    clarifying_questions: { type: "array", items: { type: "string" } },
    goal: { type: "string" },
    scope: { type: "string" },
    sections: {
      type: "array",
      items: {
        type: "object",
        properties: {
          id: { type: "string" },
          title: { type: "string" },
          questions: { type: "array", items: { type: "string" } },
        },
        required: ["id", "title", "questions"],
      },
    },
  },
  required: ["goal", "sections"],
};

const strings = (value: unknown): string[] =>
  Array.isArray(value) ? value.filter((item): item is string => typeof item === "string" && item.trim() !== "") : [];

/** The model's object as a brief or questions; null when it is neither. */
export function readBrief(raw: Record<string, unknown>, allowQuestions: boolean): ResearchBriefEvent | null {
  const questions = strings(raw.clarifying_questions).map((question) => question.trim());
  if (allowQuestions && questions.length > 0) {
    return { kind: "questions", questions: questions.slice(0, RESEARCH_MAX_CLARIFYING) };
  }
  const sections = Array.isArray(raw.sections) ? raw.sections.slice(0, RESEARCH_MAX_SECTIONS) : [];
  // Ids the model repeats or leaves out are numbered: the user edits titles, not ids.
  const numbered = sections.map((section, index) =>
    section && typeof section === "object" ? { ...section, id: `s${index + 1}` } : section,
  );
  const parsed = researchBriefSchema.safeParse({
    goal: raw.goal,
    scope: typeof raw.scope === "string" ? raw.scope : "",
    sections: numbered,
  });
  return parsed.success ? { kind: "brief", brief: parsed.data } : null;
}

export async function makeBrief(request: {
  llm: LLM;
  question: string;
  history: ChatMessage[];
  /** False when the run researches its brief at once (researchAutoStart): no questions. */
  allowQuestions: boolean;
  language: PromptLanguage;
  signal: AbortSignal;
  onCut?: (cut: MessageCut) => void;
}): Promise<{ outcome: ResearchBriefEvent; usage: Usage; structured: StructuredRecord }> {
  const { language, allowQuestions } = request;
  const messages: ChatMessage[] = [
    {
      role: "system",
      content: prompt(language, "research_brief_system", {
        asking: prompt(language, allowQuestions ? "research_brief_may_ask" : "research_brief_no_asking"),
      }),
    },
    ...request.history,
    { role: "user", content: prompt(language, "research_brief_user", { question: request.question }) },
  ];
  const result = await structuredLlmCall<ResearchBriefEvent>({
    llm: request.llm,
    language,
    signal: request.signal,
    messages,
    schema,
    name: "make_brief",
    description: "The brief of a research report, or clarifying questions",
    hint: "planner_input",
    onCut: request.onCut,
    parseFn: (raw) => readBrief(raw, allowQuestions),
  });
  return { outcome: result.value, usage: result.usage, structured: { level: result.level, calls: result.llmCalls } };
}
