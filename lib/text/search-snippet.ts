/**
 * Where a sidebar search matched, as plain text plus the match's place in it: the browser puts a
 * highlight around `[start, start + length)` as text, so nothing here is ever markup.
 */
export interface TextMatch {
  text: string;
  start: number;
  length: number;
}

/** Characters of context kept before and after the match in a message snippet. */
const BEFORE = 40;
const AFTER = 80;

/**
 * SQLite's LIKE folds ASCII letters only; the match is found the same way, so the text the
 * database chose is the text highlighted (and offsets stay those of the original string).
 */
const foldAscii = (text: string) => text.replace(/[A-Z]/g, (char) => char.toLowerCase());

/** The first place `query` occurs in `text` (ASCII case folded), or null. */
export function findMatch(text: string, query: string): { start: number; length: number } | null {
  const needle = foldAscii(query);
  if (!needle) return null;
  const start = foldAscii(text).indexOf(needle);
  return start === -1 ? null : { start, length: needle.length };
}

const oneLine = (text: string) => text.replace(/\s+/g, " ");

/** Does not split a surrogate pair (an emoji) at either end of a cut. */
function safeCut(text: string, index: number): number {
  const code = text.charCodeAt(index);
  return index > 0 && index < text.length && code >= 0xdc00 && code <= 0xdfff ? index - 1 : index;
}

/**
 * A one-line excerpt of `text` around the first match of `query`, with "…" where it was cut;
 * null when the text does not contain the query.
 */
export function snippetAround(text: string, query: string): TextMatch | null {
  const found = findMatch(text, query);
  if (!found) return null;
  const from = safeCut(text, Math.max(0, found.start - BEFORE));
  const to = safeCut(text, Math.min(text.length, found.start + found.length + AFTER));
  const before = `${from > 0 ? "…" : ""}${oneLine(text.slice(from, found.start)).trimStart()}`;
  const match = oneLine(text.slice(found.start, found.start + found.length));
  const after = `${oneLine(text.slice(found.start + found.length, to)).trimEnd()}${to < text.length ? "…" : ""}`;
  return { text: `${before}${match}${after}`, start: before.length, length: match.length };
}
