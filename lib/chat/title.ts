import { ContextGuard } from "@/lib/agent/context-guard";
import type { LLM } from "@/lib/llm/types";
import { type PromptLanguage, prompt } from "@/lib/prompts";
import { TITLE_MAX } from "@/lib/text/conversation-title";

/** A model's title reply made fit for the sidebar: one line, no quotes or Markdown, bounded. */
export function cleanTitle(raw: string): string | null {
  const line = raw
    .replace(/<think>[\s\S]*?<\/think>/gi, "")
    .split("\n")
    .map((l) => l.trim())
    .find(Boolean);
  if (!line) return null;
  const title = line
    .replace(/^(title|タイトル)\s*[:：]\s*/i, "")
    .replace(/[*_`#>]/g, "")
    .replace(/[.。!！]+$/, "")
    .replace(/^["'「『“]+|["'」』”]+$/g, "")
    .replace(/[.。!！]+$/, "")
    .trim();
  if (!title) return null;
  return title.length > TITLE_MAX ? `${title.slice(0, TITLE_MAX - 1)}…` : title;
}

/**
 * An automatic title from the first exchange (docs/architecture.md, "One turn", step 6): one short model
 * call after the answer, without thinking, bounded in time; any failure keeps the title taken from the
 * first message.
 */
export async function suggestTitle(
  llm: LLM,
  {
    question,
    answer,
    language,
    signal,
    timeoutMs = 15_000,
  }: {
    question: string;
    answer: string;
    language: PromptLanguage;
    signal?: AbortSignal;
    timeoutMs?: number;
  },
): Promise<string | null> {
  try {
    const request = {
      role: "user" as const,
      content: prompt(language, "title", { question: question.slice(0, 1000), answer: answer.slice(0, 1500) }),
    };
    // Like every model call, the title's fits its model's context (cut, never sent whole to be dropped by Ollama).
    const messages = await new ContextGuard({ llm, language }).fit([request], new Set([request]), { hint: "general" });
    const reply = await llm.chat(messages, {
      signal: AbortSignal.any([AbortSignal.timeout(timeoutMs), ...(signal ? [signal] : [])]),
      temperature: 0.2,
      thinking: false,
    });
    return cleanTitle(reply.content);
  } catch {
    return null;
  }
}
