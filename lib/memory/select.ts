import { foldForIndex } from "@/lib/library/query";
import { isStopPair, isStopWord, withoutParticles } from "./stop-words";

/**
 * Which of a user's memories a turn's system prompt carries (docs/architecture.md, "Projects and
 * memory"): all of them while they fit the budget, else the most relevant to the question first,
 * as many as fit. Relevance is a BM25 score over the memories, with the library's folding
 * (NFKC, lowercase) and words; Japanese and Chinese runs, written without spaces, count by their
 * character pairs. Stop words — English function words, Japanese particles and endings
 * (./stop-words.ts) — are no terms, so they never decide the ranking. Framework-free.
 */

export interface MemoryItem {
  id: string;
  text: string;
  createdAt: number;
}

export interface MemorySelection<T extends MemoryItem> {
  /** The memories given to the model, the most relevant first. */
  included: T[];
  /** How many the user has. */
  total: number;
}

const K1 = 1.2;
const B = 0.75;
const CJK = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/u;

/**
 * A text's terms: its folded words, and each pair of characters in a CJK word (a lone character
 * alone), the word cut at its particles first; no stop words.
 */
export function memoryTerms(text: string): string[] {
  const terms: string[] = [];
  for (const word of foldForIndex(text).split(/[^\p{L}\p{N}\p{M}]+/u)) {
    if (!word) continue;
    if (!CJK.test(word)) {
      if (!isStopWord(word)) terms.push(word);
      continue;
    }
    for (const part of withoutParticles(word)) {
      const chars = [...part];
      const pairs = chars.length === 1 ? [part] : chars.slice(1).map((char, i) => `${chars[i]}${char}`);
      terms.push(...pairs.filter((pair) => !isStopPair(pair)));
    }
  }
  return terms;
}

/** Each memory's BM25 score for the question (0 when no term is shared). */
export function rankMemories<T extends MemoryItem>(
  question: string,
  items: readonly T[],
): { item: T; score: number }[] {
  const wanted = new Set(memoryTerms(question));
  const docs = items.map((item) => memoryTerms(item.text));
  const avgLength = docs.reduce((sum, terms) => sum + terms.length, 0) / Math.max(1, docs.length);
  const docFrequency = new Map<string, number>();
  for (const terms of docs) {
    for (const term of new Set(terms)) if (wanted.has(term)) docFrequency.set(term, (docFrequency.get(term) ?? 0) + 1);
  }
  return items.map((item, index) => {
    const terms = docs[index] ?? [];
    const counts = new Map<string, number>();
    for (const term of terms) if (wanted.has(term)) counts.set(term, (counts.get(term) ?? 0) + 1);
    let score = 0;
    for (const [term, tf] of counts) {
      const df = docFrequency.get(term) ?? 0;
      const idf = Math.log(1 + (items.length - df + 0.5) / (df + 0.5));
      score += (idf * tf * (K1 + 1)) / (tf + K1 * (1 - B + (B * terms.length) / Math.max(1, avgLength)));
    }
    return { item, score };
  });
}

/** How one memory is written in the prompt (its cost against the budget). */
export const memoryLine = (text: string) => `- ${text.replace(/\s+/g, " ").trim()}`;

/**
 * The memories within `maxChars` (their lines and the newlines between them): ranked by relevance
 * to the question, the newest first among equals, then taken in that order while they fit (one that
 * does not fit is passed over for a shorter one after it).
 */
export function selectMemories<T extends MemoryItem>(
  question: string,
  items: readonly T[],
  maxChars: number,
): MemorySelection<T> {
  const ranked = rankMemories(question, items).sort(
    (a, b) => b.score - a.score || b.item.createdAt - a.item.createdAt || a.item.id.localeCompare(b.item.id),
  );
  const included: T[] = [];
  let used = 0;
  for (const { item } of ranked) {
    const cost = memoryLine(item.text).length + (included.length > 0 ? 1 : 0);
    if (used + cost > maxChars) continue;
    included.push(item);
    used += cost;
  }
  return { included, total: items.length };
}
