/**
 * The terms the passage finder ranks by (docs/research.md, "Checking citations"): Latin-script words
 * lowercased, lightly stemmed and without stop words; numbers as whole numbers; Japanese and Chinese
 * as character bigrams of each kana/kanji run. Full-width and other compatibility forms are read
 * NFKC-normalised, and every term keeps where it is written in the original text, so a passage can
 * show the claim's words as the source wrote them.
 */

/** One term of a text, and where it is written there. */
export interface Term {
  term: string;
  start: number;
  end: number;
  /** A bigram (or lone character) of a kana/kanji run: neighbours overlap by one character. */
  cjk: boolean;
}

/** A text NFKC-normalised character by character, with each normalised unit's place in the original. */
interface Folded {
  text: string;
  /** Where the original character of each unit of `text` starts and ends. */
  from: Int32Array;
  to: Int32Array;
}

const foldCache = new Map<string, string>();

function foldChar(char: string): string {
  let folded = foldCache.get(char);
  if (folded === undefined) {
    folded = char.normalize("NFKC");
    foldCache.set(char, folded);
  }
  return folded;
}

/** NFKC per character (not across characters), so each term maps back to what the text wrote. */
export function fold(text: string): Folded {
  const units: string[] = [];
  const from: number[] = [];
  const to: number[] = [];
  let i = 0;
  while (i < text.length) {
    const code = text.codePointAt(i) ?? 0;
    const width = code > 0xffff ? 2 : 1;
    const char = text.slice(i, i + width);
    const folded = code < 0x80 ? char : foldChar(char);
    for (let u = 0; u < folded.length; u++) {
      units.push(folded[u] ?? "");
      from.push(i);
      to.push(i + width);
    }
    i += width;
  }
  return { text: units.join(""), from: Int32Array.from(from), to: Int32Array.from(to) };
}

// Words of English that say nothing of what a passage is about.
const STOP_WORDS = new Set(
  (
    "a an and are as at be been being but by can could did do does doing for from had has have having he her " +
    "here hers him his how i if in into is it its itself just may me might more most must my of on once only " +
    "or other our ours out over own same shall she should so some such than that the their theirs them then " +
    "there these they this those through to too under until up very was we were what when where which while " +
    "who whom why will with would you your yours also about above after again against all any because before " +
    "below between both down during each few further off s t st nd rd th via per etc"
  ).split(" "),
);

/** Light English stemming: plural s, -es, -ies, -ing, -ed, and a final e, so "uses", "used" and "using" meet. */
export function stem(word: string): string {
  let w = word;
  if (w.endsWith("'s") || w.endsWith("’s")) w = w.slice(0, -2);
  if (w.length > 4 && w.endsWith("ies")) w = `${w.slice(0, -3)}y`;
  else if (w.length > 4 && /(?:ss|x|z|ch|sh)es$/.test(w)) w = w.slice(0, -2);
  else if (w.length > 3 && w.endsWith("s") && !/(?:ss|us|is)$/.test(w)) w = w.slice(0, -1);
  else if (w.length > 4 && w.endsWith("ing")) w = undouble(w.slice(0, -3));
  else if (w.length > 3 && w.endsWith("ed") && !w.endsWith("eed")) w = undouble(w.slice(0, -2));
  if (w.length > 2 && w.endsWith("e")) w = w.slice(0, -1);
  return w;
}

function undouble(w: string): string {
  return /([b-df-hj-km-np-rtv-z])\1$/.test(w) && !/(?:ll|ss|zz)$/.test(w) ? w.slice(0, -1) : w;
}

/** A number as a whole: "1,234" and "1234" are one term, "3.50" and "3.5" another. */
export function numberTerm(written: string): string {
  const plain = written.replace(/[,\s\u00a0\u202f]/g, "");
  const [whole = "", fraction] = plain.split(".");
  const integer = whole.replace(/^0+(?=\d)/, "");
  const decimals = fraction?.replace(/0+$/, "");
  return decimals ? `${integer}.${decimals}` : integer;
}

const CJK_CHAR = /[\p{sc=Han}\p{sc=Hiragana}\p{sc=Katakana}\u30fc\u3005\u3006]/u;

// A version (1.2.3) stays one term; a number may group thousands with commas; a word is a run of
// letters and digits of a script that separates its words; a kana/kanji run is read as bigrams.
const TOKEN =
  /(\d+(?:\.\d+){2,})|(\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?)|((?:(?![\p{sc=Han}\p{sc=Hiragana}\p{sc=Katakana}\u30fc\u3005\u3006])[\p{L}\p{M}\p{Nd}])+(?:['’]s)?)|([\p{sc=Han}\p{sc=Hiragana}\p{sc=Katakana}\u30fc\u3005\u3006]+)/gu;

/** Every term of `text`, in order. */
export function termsOf(text: string): Term[] {
  const folded = fold(text);
  const terms: Term[] = [];
  const at = (s: number, e: number, term: string, cjk: boolean) =>
    terms.push({ term, start: folded.from[s] ?? 0, end: folded.to[e - 1] ?? 0, cjk });
  for (const match of folded.text.matchAll(TOKEN)) {
    const s = match.index ?? 0;
    const [written, version, number, word, run] = match;
    const e = s + written.length;
    if (version) at(s, e, version, false);
    else if (number) at(s, e, numberTerm(number), false);
    else if (word) {
      const lower = word.toLowerCase();
      if (lower.length < 2 || STOP_WORDS.has(lower)) continue;
      at(s, e, stem(lower), false);
    } else if (run) {
      const chars = Array.from(run);
      if (chars.length === 1) at(s, e, run, true);
      let offset = s;
      for (let c = 0; c + 1 < chars.length; c++) {
        const first = chars[c] ?? "";
        const pair = first + (chars[c + 1] ?? "");
        at(offset, offset + pair.length, pair, true);
        offset += first.length;
      }
    }
  }
  return terms;
}

/** Whether a character is written in kana or kanji (after NFKC). */
export function isCjk(char: string): boolean {
  return CJK_CHAR.test(foldChar(char));
}
