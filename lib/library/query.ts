/**
 * What the user or the model typed into a library search, made safe for the full-text index
 * (docs/architecture.md, "The library index"): words, "quoted phrases" and prefix* words. Nothing
 * typed reaches the index's query syntax as syntax: FTS5 operators (AND, OR, NOT, NEAR, column
 * filters, `^`, parentheses) are read as plain words. Text is NFKC-normalised and lowercased on both
 * sides, so full-width and half-width forms and letter case match each other. Framework-free.
 */

export interface QueryTerm {
  text: string;
  /** A "quoted phrase": its words in this order. */
  phrase: boolean;
  /** `word*`: any word starting with it. */
  prefix: boolean;
}

/**
 * How many passages a search ranks at most: the newest that match. A term in more passages than this
 * (a common word over a large library) is ranked among these only — the search says so
 * (`limited`), so the model or the user can narrow it — which keeps a query's cost bounded by this
 * number rather than by the library's size.
 */
export const RANKED_PASSAGES = 2000;

export const MAX_QUERY_CHARS = 500;
const MAX_TERMS = 16;

/** The form passages are indexed in and queries compared in. */
export function foldForIndex(text: string): string {
  return text.normalize("NFKC").toLowerCase();
}

/** The query's terms; none for a query with nothing to find. */
export function parseQuery(query: string): QueryTerm[] {
  const folded = foldForIndex(query.slice(0, MAX_QUERY_CHARS));
  const terms: QueryTerm[] = [];
  for (const match of folded.matchAll(/"([^"]*)"?|([^\s"]+)/g)) {
    const quoted = match[1];
    if (quoted !== undefined) {
      const text = quoted.trim().replace(/\s+/g, " ");
      if (text) terms.push({ text, phrase: true, prefix: false });
      continue;
    }
    const raw = match[2] ?? "";
    const prefix = raw.endsWith("*");
    for (const word of words(raw)) terms.push({ text: word, phrase: false, prefix: false });
    const last = terms.at(-1);
    if (prefix && last && !last.phrase) last.prefix = true;
  }
  return terms.slice(0, MAX_TERMS);
}

/** The letters, digits and marks of a piece of query text, as words (punctuation separates them). */
function words(text: string): string[] {
  return text.split(/[^\p{L}\p{N}\p{M}]+/u).filter(Boolean);
}

/** A LIKE pattern matching the term anywhere, with LIKE's own wildcards escaped by `\`. */
export function likePattern(term: QueryTerm): string {
  return `%${term.text.replace(/[\\%_]/g, (char) => `\\${char}`)}%`;
}
