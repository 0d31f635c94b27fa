import "server-only";
import { isDatabaseBusy } from "@/lib/db/busy";
import type { LLM } from "@/lib/llm/types";
import type { PromptLanguage } from "@/lib/prompts";
import type { LiveRun } from "./live-run";
import type { RunHooks } from "./run-hooks";
import { suggestTitle } from "./title";

/**
 * A first turn's title, after its `done` and off the turn's critical path: the answer is stored
 * and the conversation free. Its own model makes it (no thinking), `onTitle` stores it, and it
 * goes out as a `title` event. A busy database keeps the placeholder title.
 */
export async function titleFirstTurn(
  live: LiveRun,
  {
    titleLlm,
    question,
    language,
    onTitle,
  }: { titleLlm: LLM; question: string; language: PromptLanguage; onTitle: NonNullable<RunHooks["onTitle"]> },
): Promise<void> {
  const suggested = await suggestTitle(titleLlm, { question, answer: live.answer.text, language });
  let title: string | null = null;
  try {
    if (suggested) title = await onTitle(suggested);
  } catch (error) {
    if (!isDatabaseBusy(error)) throw error; // the placeholder title stays
  }
  if (title) live.emit("title", { title }, { store: false });
}
