import "server-only";
import type { Db } from "@/lib/db/client";
import type { OwnerId } from "@/lib/db/conversations";
import { listMemories } from "@/lib/db/memories";
import { type PromptLanguage, prompt } from "@/lib/prompts";
import { readMemoryPreferences } from "./preferences";
import { memoryLine, selectMemories } from "./select";

/**
 * What a turn reads of its owner's memory (docs/architecture.md, "Projects and memory"), found
 * when the turn starts: nothing for a private chat or an owner who switched memory off; else the
 * memories within `MEMORY_MAX_CHARS`, the most relevant to the question first, as a part of the
 * system prompt every model call of the turn gets, and how many of how many that is.
 */
export interface TurnMemory {
  /** Memory is read and written in this turn (`remember` is offered). */
  active: boolean;
  /** `remember` proposes; the user saves. */
  askBeforeSaving: boolean;
  /** The system prompt's part with the memories; absent when none is given. */
  prompt?: string;
  included: number;
  total: number;
}

export const NO_MEMORY: TurnMemory = { active: false, askBeforeSaving: false, included: 0, total: 0 };

export async function turnMemory(
  db: Db,
  {
    ownerId,
    conversation,
    question,
    maxChars,
  }: { ownerId: OwnerId; conversation: { private: boolean }; question: string; maxChars: number },
): Promise<TurnMemory> {
  if (conversation.private) return NO_MEMORY;
  const preferences = await readMemoryPreferences(db, { ownerId });
  if (!preferences.enabled) return NO_MEMORY;
  const all = await listMemories(db, { ownerId });
  const { included, total } = selectMemories(question, all, maxChars);
  return {
    active: true,
    askBeforeSaving: preferences.askBeforeSaving,
    included: included.length,
    total,
    ...(included.length > 0 ? { prompt: included.map((memory) => memoryLine(memory.text)).join("\n") } : {}),
  };
}

/** The instructions a turn's model calls get: the project's and the chat's, then the memories. */
export function withMemories(
  instructions: string | undefined,
  memory: TurnMemory,
  language: PromptLanguage,
): string | undefined {
  if (!memory.prompt) return instructions;
  const part = prompt(language, "memories", { memories: memory.prompt });
  return instructions ? `${instructions}\n\n${part}` : part;
}
