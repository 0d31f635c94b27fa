import { type PromptLanguage, prompt } from "@/lib/prompts";

/**
 * A system prompt with the user's own instructions for the conversation as its last part, framed
 * as theirs (docs/architecture.md, "A chat's own settings"): the agent's instructions before them
 * stay in force.
 */
export function withUserInstructions(system: string, instructions: string | undefined, language: PromptLanguage) {
  const own = instructions?.trim();
  return own ? `${system}\n\n${prompt(language, "user_instructions", { instructions: own })}` : system;
}
