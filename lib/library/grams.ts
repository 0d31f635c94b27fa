/**
 * The library index's tokens (docs/architecture.md, "The library index"). Each passage's folded
 * text becomes `grams`: every word of scripts that separate words (Latin, Cyrillic, Greek, Arabic,
 * digits…), and every character and every pair of adjacent characters of its Chinese, Japanese and
 * Korean runs — so Japanese matches without a word segmenter, a two-character word such as 東京 is
 * one token, and a longer one is the pairs it is made of. A query term is looked up by its own
 * tokens (`termLookup`) and, where those say less than the term, checked against the passage's
 * text. Framework-free; both sides read folded text.
 */

const CJK = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}ー々〆ヶ]/u;
const WORD_CHAR = /[\p{L}\p{N}\p{M}]/u;

/** The words and CJK characters and pairs of a folded text, in order, repeats kept. */
function tokensOf(folded: string): string[] {
  const tokens: string[] = [];
  let previous = "";
  let word = "";
  const endWord = () => {
    if (word) tokens.push(word);
    word = "";
  };
  for (const char of folded) {
    if (CJK.test(char)) {
      endWord();
      tokens.push(char);
      if (previous) tokens.push(previous + char);
      previous = char;
    } else {
      previous = "";
      if (WORD_CHAR.test(char)) word += char;
      else endWord();
    }
  }
  endWord();
  return tokens;
}

/** The passage's tokens in order, separated by spaces: repeats kept, so a word said more often ranks higher. */
export function gramsOf(folded: string): string {
  return tokensOf(folded).join(" ");
}

export interface TermLookup {
  /** Every one of these is among the passage's tokens. */
  tokens: string[];
  /** The last word token only starts a word of the passage (`word*`). */
  prefix: boolean;
  /** The tokens say less than the term (a phrase, a CJK term of three characters or more): the passage's text must hold it too. */
  verify: boolean;
}

/**
 * How a term (folded) is looked up: a word as the whole word (or, with `*`, a word it starts); a
 * CJK term of one or two characters as itself; anything longer — CJK words, phrases, words mixing
 * scripts — by the tokens it is made of, then checked as a substring of the passage.
 */
export function termLookup(text: string, prefix: boolean): TermLookup {
  const tokens = tokensOf(text);
  const chars = [...text];
  const cjkOnly = chars.every((char) => CJK.test(char));
  if (cjkOnly && chars.length <= 2) return { tokens: [text], prefix: false, verify: false };
  // A CJK term is a substring anywhere: its pairs are what every passage holding it has.
  const kept = cjkOnly ? tokens.filter((token) => [...token].length === 2) : [...new Set(tokens)];
  const single = kept.length === 1 && !cjkOnly && kept[0] === text;
  const lastIsWord = !CJK.test(chars.at(-1) ?? "");
  return { tokens: kept, prefix: prefix && lastIsWord, verify: !single };
}

/**
 * SQLite's FTS5 MATCH text for the terms' tokens: every token must occur, each a quoted string (so
 * no operator is read), a `word*`'s last one as a prefix.
 */
export function tokensMatch(terms: { text: string; prefix: boolean }[]): string {
  const quoted = (token: string) => `"${token.replaceAll('"', '""')}"`;
  return terms
    .flatMap((term) => {
      const lookup = termLookup(term.text, term.prefix);
      return lookup.tokens.map((token, at) =>
        lookup.prefix && at === lookup.tokens.length - 1 ? `${quoted(token)}*` : quoted(token),
      );
    })
    .join(" AND ");
}
