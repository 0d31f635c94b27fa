import type { ChatMessage, LLM, ToolSpec, Usage } from "@/lib/llm/types";
import { type PromptLanguage, prompt } from "@/lib/prompts";
import type { StructuredRecord } from "@/lib/protocol/run-events";
import type { MessageCut } from "../context-guard";
import { structuredLlmCall } from "../structured-call";
import { catalogue } from "../tool-selection";
import { checkPlan, type PlanCheck } from "./plan";

/** The planner: one structured call that breaks the goal into steps, checked by `checkPlan`. */

const schema = {
  type: "object",
  properties: {
    steps: {
      type: "array",
      items: {
        type: "object",
        properties: {
          id: { type: "string" },
          task: { type: "string" },
          dependencies: { type: "array", items: { type: "string" } },
          tool_hint: { type: ["string", "null"] },
          model_hint: { enum: ["fast", "reasoning", null] },
        },
        required: ["id", "task", "dependencies"],
      },
    },
  },
  required: ["steps"],
};

export interface PlanRequest {
  llm: LLM;
  goal: string;
  /** Earlier turns of the conversation, so the goal can refer to them. */
  history: ChatMessage[];
  tools: ToolSpec[];
  maxSteps: number;
  /** Ids earlier rounds used: a new step may not take them. */
  takenIds: Set<string>;
  /** Why it is asked again: the last plan's problem, or the first round's findings. */
  feedback?: string;
  language: PromptLanguage;
  signal: AbortSignal;
  /** The request had to be cut to fit the model's context. */
  onCut?: (cut: MessageCut) => void;
}

export async function makePlan(
  request: PlanRequest,
): Promise<{ check: PlanCheck; usage: Usage; structured: StructuredRecord }> {
  const { llm, language, signal, tools } = request;
  const messages: ChatMessage[] = [
    { role: "system", content: prompt(language, "dag_planner_system", { max: String(request.maxSteps) }) },
    ...request.history,
    {
      role: "user",
      content: prompt(language, "dag_planner_user", { catalogue: catalogue(tools), goal: request.goal }),
    },
    ...(request.feedback ? [{ role: "user" as const, content: request.feedback }] : []),
  ];
  const result = await structuredLlmCall<unknown[] | null>({
    llm,
    language,
    signal,
    messages,
    schema,
    name: "make_plan",
    // Earlier turns that do not fit are summarised for planning; the request itself is kept.
    hint: "planner_input",
    onCut: request.onCut,
    description: "The steps that achieve the goal",
    // A reply without a list of steps drops to the next level; the list itself is checked below.
    parseFn: (raw) => (Array.isArray(raw.steps) && raw.steps.length > 0 ? raw.steps : null),
    defaultValue: null,
  });
  const check = checkPlan(result.value, {
    maxSteps: request.maxSteps,
    toolNames: tools.map((tool) => tool.name),
    takenIds: request.takenIds,
  });
  return { check, usage: result.usage, structured: { level: result.level, calls: result.llmCalls } };
}
