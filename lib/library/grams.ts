/**
 * The short-term index's tokens (docs/architecture.md, "The library index"). A trigram index cannot
 * look up a term of one or two characters — two-character Japanese words such as 東京 are common —
 * so each passage also carries `grams`: every character and every pair of adjacent characters of
 * its Chinese, Japanese and Korean runs, and the first one and two characters of each other word.
 * A short term is then one exact token: a CJK term wherever it occurs, another term at the start
 * of a word ("16" finds "16" and "1600", not "2016"). Framework-free; both sides read folded text.
 */

const CJK = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}ー々〆ヶ]/u;
const WORD_CHAR = /[\p{L}\p{N}\p{M}]/u;
const CJK_RUN = new RegExp(`${CJK.source}+`, "gu");

/** The passage's tokens, each once, separated by spaces. */
export function gramsOf(folded: string): string {
  const tokens = new Set<string>();
  let previous = "";
  // The first characters of the current word of another script: "" between words.
  let wordStart = "";
  let inWord = false;
  for (const char of folded) {
    if (CJK.test(char)) {
      tokens.add(char);
      if (previous) tokens.add(previous + char);
      previous = char;
      inWord = false;
    } else if (WORD_CHAR.test(char)) {
      previous = "";
      if (!inWord) wordStart = "";
      inWord = true;
      if ([...wordStart].length < 2) {
        wordStart += char;
        tokens.add(wordStart);
      }
    } else {
      previous = "";
      inWord = false;
    }
  }
  return [...tokens].join(" ");
}

/**
 * The tokens every passage holding `text` (folded) has, whatever surrounds it there: the pairs of
 * its CJK runs, and a lone CJK character by itself. (A word of another script may sit inside a
 * longer word, so its first characters say nothing.) PostgreSQL looks a longer CJK term up by them,
 * since its trigram index reads no CJK under the C locale.
 */
export function cjkGramsOf(text: string): string[] {
  const tokens = new Set<string>();
  for (const run of text.match(CJK_RUN) ?? []) {
    const chars = [...run];
    if (chars.length === 1) tokens.add(run);
    for (let at = 1; at < chars.length; at++) tokens.add(`${chars[at - 1]}${chars[at]}`);
  }
  return [...tokens];
}

/**
 * The token a short term is looked up by: the term itself when it is all CJK or all word characters
 * of other scripts; null when it mixes the two (it is then matched by substring alone).
 */
export function gramFor(term: string): string | null {
  const chars = [...term];
  if (chars.length === 0 || chars.length > 2) return null;
  if (chars.every((char) => CJK.test(char))) return term;
  if (chars.every((char) => WORD_CHAR.test(char) && !CJK.test(char))) return term;
  return null;
}
