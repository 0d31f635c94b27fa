import en from "@/prompts/en.json";
import ja from "@/prompts/ja.json";

/** Every prompt text lives in prompts/<lang>.json (STYLE: no prompt literals in logic). */

export type PromptLanguage = "en" | "ja";
export type PromptKey = keyof typeof en;

const catalogs: Record<PromptLanguage, Record<PromptKey, string>> = { en, ja };

/** Japanese when the text has kana or kanji, else English. */
export function detectLanguage(text: string): PromptLanguage {
  return /[\u3040-\u30ff\u3400-\u9fff]/.test(text) ? "ja" : "en";
}

export function prompt(language: PromptLanguage, key: PromptKey, vars: Record<string, string> = {}): string {
  return catalogs[language][key].replace(/\{(\w+)\}/g, (match, name: string) => vars[name] ?? match);
}
