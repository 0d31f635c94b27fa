import type { ToolSpec } from "@/lib/llm/types";
import { type PromptLanguage, prompt } from "@/lib/prompts";
import { JsonAnswerGate } from "./answer-gate";
import { extractJson } from "./extract-json";
import type { RunState } from "./run-state";
import { callFromObject, shownAnswer } from "./tool-call-forms";

/**
 * JSON mode: tools described in the system prompt, one JSON action per reply with
 * JSON output asked of the model, observations as user messages. A reply that does not parse gets one reformat
 * request (counted against MAX_ITERATIONS); a second failure makes the raw reply the answer.
 * A model that calls a tool after the budget was announced loses its tools as in native mode: it
 * is told so and called without JSON output, and that plain reply is the answer.
 */

export const PARSE_FAILURE = "(could not parse LLM output as JSON)";

export type JsonAction =
  | { type: "tool_call"; reasoning: string; toolName: string; toolArgs: Record<string, unknown> }
  | { type: "final_answer"; reasoning: string; answer: string };

export function describeTools(tools: ToolSpec[]): string {
  return tools
    .map((tool) => `- ${tool.name}: ${tool.description}\n  parameters: ${JSON.stringify(tool.parameters)}`)
    .join("\n");
}

export function jsonModeInstructions(language: PromptLanguage, tools: ToolSpec[]): string {
  return prompt(language, "json_mode_system", { tools: describeTools(tools) });
}

/** The action in a reply; a reply that does not parse is a final answer carrying the sentinel. */
export function parseAction(content: string, thinking: string): JsonAction {
  const object = extractJson(content);
  const reasoning = (typeof object?.reasoning === "string" && object.reasoning.trim()) || thinking;
  if (object) {
    // Every key spelling of a call (`tool_input`, `params`, `function`, …) keeps its arguments.
    const call = object.type === "final_answer" ? null : callFromObject(object);
    const toolName = call?.name ?? object.tool_name ?? object.tool ?? object.name;
    const type = object.type ?? (toolName ? "tool_call" : "answer" in object ? "final_answer" : undefined);
    if (type === "tool_call" && typeof toolName === "string") {
      const args = call ? call.arguments : (object.tool_args ?? object.arguments ?? object.parameters ?? {});
      const toolArgs = typeof args === "string" ? (extractJson(args) ?? {}) : (args as Record<string, unknown>);
      return {
        type: "tool_call",
        reasoning,
        toolName,
        toolArgs: toolArgs && typeof toolArgs === "object" ? toolArgs : {},
      };
    }
    if (type === "final_answer" && typeof object.answer === "string") {
      return { type: "final_answer", reasoning, answer: shownAnswer(object.answer) };
    }
  }
  return { type: "final_answer", reasoning: PARSE_FAILURE, answer: content };
}

/** The tools are withdrawn: one plain-text reply (or a final_answer the model wrote anyway) is the answer. */
async function answerWithoutTools(state: RunState, language: PromptLanguage, told: boolean): Promise<string> {
  if (!told) state.push({ role: "user", content: prompt(language, "tools_withdrawn") });
  const reply = await state.callModel({});
  state.push({ role: "assistant", content: reply.content });
  const action = parseAction(reply.content, reply.reasoning);
  return action.type === "final_answer" && action.reasoning !== PARSE_FAILURE ? action.answer : reply.content;
}

export async function runJsonLoop(state: RunState, language: PromptLanguage): Promise<string> {
  let lastFailed = false;
  let withdrawn = false;
  for (;;) {
    if (state.toolsDisabled) {
      const answer = await answerWithoutTools(state, language, withdrawn);
      withdrawn = true;
      // As in native mode, an interrupt with the answer suppresses it.
      if (state.drainInterrupts()) continue;
      return answer;
    }
    const sink = state.openAnswer();
    const gate = sink ? new JsonAnswerGate(sink.emit) : null;
    const reply = await state.callModel({ output: { type: "json" } }, gate ? (delta) => gate.push(delta) : undefined);
    const action = parseAction(reply.content, reply.reasoning);
    const direct = action.type === "final_answer" && action.reasoning !== PARSE_FAILURE;
    gate?.end(direct ? action.answer : null);
    state.push({ role: "assistant", content: reply.content });
    // The model's own thinking was shown by callModel; otherwise show the action's reasoning.
    if (!reply.reasoning.trim() && action.reasoning.trim() && action.reasoning !== PARSE_FAILURE) {
      state.emit({ type: "thinking", iteration: state.iterations, text: action.reasoning });
    }
    // A direct answer is on screen: it stands, and interrupts wait for the next turn (`done`).
    if (gate?.shown && !sink?.withheld && action.type === "final_answer") {
      state.direct = true;
      return action.answer;
    }
    // Drain before looking at the action: an interrupt suppresses a pending final answer
    // (a pending tool call still runs; its observation follows the interrupt).
    const interrupted = state.drainInterrupts();
    if (interrupted && action.type === "final_answer") {
      lastFailed = false;
      continue;
    }
    if (action.type === "final_answer" && action.reasoning === PARSE_FAILURE) {
      if (lastFailed) return reply.content;
      lastFailed = true;
      state.push({ role: "user", content: prompt(language, "reformat") });
      continue;
    }
    lastFailed = false;
    if (action.type === "final_answer") return action.answer;

    const [outcome] = await state.runCalls([
      { id: `json_${state.iterations}`, name: action.toolName, args: action.toolArgs },
    ]);
    if (outcome) {
      state.push(
        {
          role: "user",
          content: prompt(language, outcome.ok ? "observation" : "observation_error", { text: outcome.observation }),
        },
        { as: "tool_result", tool: outcome.name },
      );
    }
    state.announceBudget();
  }
}
