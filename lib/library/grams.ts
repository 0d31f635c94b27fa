/**
 * The library index's tokens (docs/architecture.md, "The library index"). Each passage's folded
 * text becomes `grams`: its words of scripts that separate words (Latin, Cyrillic, Greek, Arabic,
 * digits…) and, for each run of Chinese, Japanese or Korean characters, the pairs of adjacent
 * characters it is made of (a character standing alone is its own token) — in the text's order —
 * then, after a mark, each character of those runs, for a one-character term. So Japanese matches
 * without a word segmenter, a two-character word such as 東京 is one token, and every term is a
 * sequence its passages hold side by side (`termLookup`). Framework-free; both sides read folded text.
 */

const CJK = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}ー々〆ヶ]/u;
const WORD_CHAR = /[\p{L}\p{N}\p{M}]/u;

/**
 * Ends the sequence and starts the characters: a private-use character, which the index reads as a
 * token but no query can hold (queries are letters, digits and marks), so no phrase runs across it.
 */
export const CHARACTERS_MARK = "\uE000";

/** A word, or a run of CJK characters. */
type Piece = { word: string } | { run: string[] };

function piecesOf(folded: string): Piece[] {
  const pieces: Piece[] = [];
  let word = "";
  let run: string[] = [];
  const end = () => {
    if (word) pieces.push({ word });
    if (run.length) pieces.push({ run });
    word = "";
    run = [];
  };
  for (const char of folded) {
    const cjk = CJK.test(char);
    if (cjk ? word !== "" : run.length > 0 || !WORD_CHAR.test(char)) end();
    if (cjk) run.push(char);
    else if (WORD_CHAR.test(char)) word += char;
  }
  end();
  return pieces;
}

/** A piece's tokens in the sequence: the word; a run's adjacent pairs, or its one character. */
function sequenceOf(piece: Piece): string[] {
  if ("word" in piece) return [piece.word];
  const { run } = piece;
  return run.length === 1 ? run : run.slice(1).map((char, at) => `${run[at]}${char}`);
}

/**
 * The passage's tokens, separated by spaces: the sequence (repeats kept, so a word said more often
 * ranks higher), then the mark and the characters of its runs of two or more (東京都 は 雨: 東京 京都
 * は 雨, mark, 東 京 都).
 */
export function gramsOf(folded: string): string {
  const pieces = piecesOf(folded);
  const characters = pieces.flatMap((piece) => ("run" in piece && piece.run.length > 1 ? piece.run : []));
  const sequence = pieces.flatMap(sequenceOf);
  return (characters.length ? [...sequence, CHARACTERS_MARK, ...characters] : sequence).join(" ");
}

export interface TermLookup {
  /** The term's tokens in order: one, or a sequence the passage's tokens hold side by side. */
  tokens: string[];
  /** Tokens the passage holds anywhere besides (a character standing alone at the term's edge). */
  anywhere: string[];
  /** The last token only starts a word of the passage (`word*`). */
  prefix: boolean;
  /**
   * The tokens say less than the term — it has punctuation they leave out ("100%", "node.js"), or
   * a character at its edge stands alone — so the passage's text must hold it as written too.
   */
  literal: boolean;
}

/**
 * How a term (folded) is looked up: a word as the whole word (or, with `*`, a word it starts); a
 * CJK term as its pairs side by side (one character: itself, anywhere); a phrase or a word mixing
 * scripts as all of those in order — words whole, whatever punctuation stands between them. A
 * character alone at the edge of a longer term ("京2") may be one of a longer run in the passage
 * (東京2), whose tokens are its pairs: it is looked for anywhere, and the text checked.
 */
export function termLookup(text: string, prefix: boolean): TermLookup {
  const pieces = piecesOf(text);
  const aloneAtEdge = (piece: Piece, at: number) =>
    pieces.length > 1 && (at === 0 || at === pieces.length - 1) && "run" in piece && piece.run.length === 1;
  const kept = pieces.filter((piece, at) => !aloneAtEdge(piece, at));
  const anywhere = pieces.filter(aloneAtEdge).flatMap(sequenceOf);
  return {
    tokens: kept.flatMap(sequenceOf),
    anywhere,
    prefix: prefix && "word" in (pieces.at(-1) ?? {}),
    literal: anywhere.length > 0 || /[^\p{L}\p{N}\p{M}\s]/u.test(text),
  };
}

/**
 * SQLite's FTS5 MATCH text for the terms: every term must occur, each token a quoted string (so no
 * operator is read), a term's sequence an FTS5 phrase of its tokens (`"a" + "b"`), a `word*`'s last
 * token a prefix.
 */
export function tokensMatch(terms: { text: string; prefix: boolean }[]): string {
  const quoted = (token: string) => `"${token.replaceAll('"', '""')}"`;
  return terms
    .flatMap((term) => {
      const lookup = termLookup(term.text, term.prefix);
      const sequence = lookup.tokens.length
        ? [`${lookup.tokens.map(quoted).join(" + ")}${lookup.prefix ? "*" : ""}`]
        : [];
      return [...sequence, ...lookup.anywhere.map(quoted)];
    })
    .join(" AND ");
}
