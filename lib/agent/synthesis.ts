import type { ChatMessage } from "@/lib/llm/types";
import { type PromptLanguage, prompt } from "@/lib/prompts";
import type { AgentResult } from "./types";

/**
 * Phase 2: a streamed answer written from the whole trace by a synthesiser prompt —
 * direct, Markdown, no meta-commentary, the question's language. Each tool result is cut to
 * SYNTHESIS_TRACE_CHARS to keep the prompt small.
 */

function cut(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max)}…`;
}

export function formatTrace(result: AgentResult, language: PromptLanguage, traceChars: number): string {
  const parts = result.steps.map(
    (step, index) =>
      `### ${index + 1}. ${step.tool}(${JSON.stringify(step.args)})${step.ok ? "" : " — error"}\n${cut(step.observation, traceChars)}`,
  );
  if (parts.length === 0) parts.push(prompt(language, "synthesis_no_tools"));
  if (result.answer.trim()) parts.push(prompt(language, "synthesis_draft", { answer: result.answer.trim() }));
  return parts.join("\n\n");
}

export function synthesisMessages(
  result: AgentResult,
  {
    question,
    history,
    language,
    traceChars,
  }: { question: string; history: ChatMessage[]; language: PromptLanguage; traceChars: number },
): ChatMessage[] {
  return [
    { role: "system", content: prompt(language, "synthesis_system") },
    ...history,
    {
      role: "user",
      content: prompt(language, "synthesis_user", { question, trace: formatTrace(result, language, traceChars) }),
    },
  ];
}
