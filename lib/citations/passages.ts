/**
 * The passage finder (docs/research.md, "Checking citations"): a source's stored text is split into
 * overlapping passages along its paragraphs, and the passages are ranked for a claim by BM25 over
 * the terms of `terms.ts`. Linear in the source's size; the index of a source is built once and kept
 * for as long as the source object lives, so the many claims of one answer share it.
 * Framework-free.
 */

import type { SourcePart } from "@/lib/protocol/sources";
import { type Term, termsOf } from "./terms";

/** What the finder reads of a stored source. */
export interface PassageSource {
  text: string;
  parts: SourcePart[];
}

/** A passage of a source: where it lies, and the PDF pages of the part it lies in. */
export interface Passage {
  start: number;
  end: number;
  pages?: { first: number; last: number };
}

/** The passage that best matches a claim. */
export interface PassageMatch extends Passage {
  text: string;
  /** The claim's terms found in the passage, as the passage writes them, in the order written. */
  matched: string[];
  /** BM25 score of the passage for the claim. */
  score: number;
  /** The share (0–1) of the claim's distinct terms that the passage holds. */
  coverage: number;
}

/** A passage grows from whole paragraphs until it holds this many characters… */
export const PASSAGE_MIN_CHARS = 400;
/** …and never past this many; the next passage starts about half-way into it. */
export const PASSAGE_MAX_CHARS = 800;
/** A paragraph longer than half a passage is cut into pieces this long at most, at a sentence end when it can. */
const PIECE_MAX_CHARS = PASSAGE_MAX_CHARS / 2;
const PIECE_MIN_CHARS = PASSAGE_MIN_CHARS / 2;

/** BM25's term-frequency saturation and length normalisation. */
const K1 = 1.2;
const B = 0.75;

interface Span {
  start: number;
  end: number;
}

interface IndexedPassage extends Passage {
  /** The passage's terms: `terms[termFrom..termTo)` of the index. */
  termFrom: number;
  termTo: number;
}

/** A source's passages and their terms, ranked from for each claim. */
export interface PassageIndex {
  text: string;
  passages: IndexedPassage[];
  terms: Term[];
  /** term → the passages holding it and how often. */
  postings: Map<string, { passage: number; count: number }[]>;
  averageLength: number;
}

/** The parts of a source, or the whole text as one part when none are listed. */
function segmentsOf(source: PassageSource): (Span & { pages?: SourcePart["pages"] })[] {
  const length = source.text.length;
  const parts = source.parts
    .map((part) => ({ start: Math.min(part.start, length), end: Math.min(part.end, length), pages: part.pages }))
    .filter((part) => part.end > part.start)
    .sort((a, b) => a.start - b.start);
  return parts.length > 0 ? parts : [{ start: 0, end: length }];
}

/** The paragraphs of `text[span]` (split at blank lines), long ones cut into pieces. */
function unitsOf(text: string, span: Span): Span[] {
  const units: Span[] = [];
  const blank = /\n[ \t\r]*\n/g;
  blank.lastIndex = span.start;
  let from = span.start;
  for (;;) {
    const match = blank.exec(text);
    const to = match && match.index < span.end ? match.index : span.end;
    pushTrimmed(text, { start: from, end: to }, units);
    if (!match || match.index >= span.end) break;
    from = match.index + match[0].length;
  }
  return units;
}

function pushTrimmed(text: string, span: Span, units: Span[]) {
  let { start, end } = span;
  while (start < end && /\s/.test(text[start] ?? "")) start++;
  while (end > start && /\s/.test(text[end - 1] ?? "")) end--;
  while (end - start > PIECE_MAX_CHARS) {
    const cut = cutAt(text, start, start + PIECE_MAX_CHARS);
    units.push({ start, end: cut });
    start = cut;
    while (start < end && /\s/.test(text[start] ?? "")) start++;
  }
  if (end > start) units.push({ start, end });
}

/** Where to end a piece in `text[from..limit)`: after its last sentence end, else line end, else space. */
function cutAt(text: string, from: number, limit: number): number {
  const window = text.slice(from + PIECE_MIN_CHARS, limit);
  for (const boundary of [/[.!?](?=\s)|[。！？]/g, /\n/g, /\s/g]) {
    let last = -1;
    for (const match of window.matchAll(boundary)) last = (match.index ?? 0) + match[0].length;
    if (last > 0) return from + PIECE_MIN_CHARS + last;
  }
  return limit;
}

/** The passages of a source: runs of whole paragraphs of one part, about half of each in the next. */
export function passagesOf(source: PassageSource): Passage[] {
  const passages: Passage[] = [];
  for (const segment of segmentsOf(source)) {
    const units = unitsOf(source.text, segment);
    const pages = segment.pages ? { first: segment.pages.first, last: segment.pages.last } : undefined;
    let first = 0;
    while (first < units.length) {
      const start = units[first]?.start ?? 0;
      let last = first;
      while (
        last + 1 < units.length &&
        (units[last]?.end ?? 0) - start < PASSAGE_MIN_CHARS &&
        (units[last + 1]?.end ?? 0) - start <= PASSAGE_MAX_CHARS
      )
        last++;
      const end = units[last]?.end ?? start;
      passages.push({ start, end, ...(pages ? { pages } : {}) });
      if (last + 1 >= units.length) break;
      const middle = start + (end - start) / 2;
      let next = first + 1;
      while (next <= last && (units[next]?.start ?? 0) < middle) next++;
      first = next;
    }
  }
  return passages;
}

function buildIndex(source: PassageSource): PassageIndex {
  const terms: Term[] = [];
  const passages: IndexedPassage[] = [];
  const postings: PassageIndex["postings"] = new Map();
  // Each part's text is read once; a passage is a range of its terms.
  for (const segment of segmentsOf(source)) {
    for (const term of termsOf(source.text.slice(segment.start, segment.end)))
      terms.push({ ...term, start: term.start + segment.start, end: term.end + segment.start });
  }
  let cursor = 0;
  let totalLength = 0;
  for (const passage of passagesOf(source)) {
    while (cursor > 0 && (terms[cursor - 1]?.start ?? 0) >= passage.start) cursor--;
    while (cursor < terms.length && (terms[cursor]?.start ?? 0) < passage.start) cursor++;
    let to = cursor;
    while (to < terms.length && (terms[to]?.end ?? 0) <= passage.end) to++;
    const index = passages.length;
    passages.push({ ...passage, termFrom: cursor, termTo: to });
    totalLength += to - cursor;
    const counts = new Map<string, number>();
    for (let t = cursor; t < to; t++) {
      const term = terms[t]?.term ?? "";
      counts.set(term, (counts.get(term) ?? 0) + 1);
    }
    for (const [term, count] of counts) {
      const list = postings.get(term);
      if (list) list.push({ passage: index, count });
      else postings.set(term, [{ passage: index, count }]);
    }
  }
  return {
    text: source.text,
    passages,
    terms,
    postings,
    averageLength: passages.length > 0 ? totalLength / passages.length : 0,
  };
}

const indexes = new WeakMap<PassageSource, PassageIndex>();

/** The source's index, built on first use and kept with the source object while its text stays the same. */
export function passageIndex(source: PassageSource): PassageIndex {
  const known = indexes.get(source);
  if (known && known.text === source.text) return known;
  const index = buildIndex(source);
  indexes.set(source, index);
  return index;
}

/** The passage of `source` that best matches `claim` by BM25, or null when no passage holds any of its terms. */
export function findPassage(claim: string, source: PassageSource): PassageMatch | null {
  const query = [...new Set(termsOf(claim).map((term) => term.term))];
  if (query.length === 0) return null;
  const index = passageIndex(source);
  const count = index.passages.length;
  const scores = new Float64Array(count);
  for (const term of query) {
    const list = index.postings.get(term);
    if (!list) continue;
    const idf = Math.log(1 + (count - list.length + 0.5) / (list.length + 0.5));
    for (const { passage, count: tf } of list) {
      const entry = index.passages[passage];
      if (!entry) continue;
      const length = entry.termTo - entry.termFrom;
      const norm = 1 - B + (B * length) / (index.averageLength || 1);
      scores[passage] = (scores[passage] ?? 0) + (idf * tf * (K1 + 1)) / (tf + K1 * norm);
    }
  }
  let best = -1;
  for (let p = 0; p < count; p++) if ((scores[p] ?? 0) > (best < 0 ? 0 : (scores[best] ?? 0))) best = p;
  const passage = index.passages[best];
  if (!passage) return null;
  const wanted = new Set(query);
  const held = new Set<string>();
  const spans: Span[] = [];
  for (let t = passage.termFrom; t < passage.termTo; t++) {
    const term = index.terms[t];
    if (!term || !wanted.has(term.term)) continue;
    held.add(term.term);
    const previous = spans[spans.length - 1];
    // Bigrams of one kana/kanji run overlap: 羅生 and 生門 are shown as 羅生門.
    if (term.cjk && previous && term.start < previous.end) previous.end = Math.max(previous.end, term.end);
    else spans.push({ start: term.start, end: term.end });
  }
  const matched = [...new Set(spans.map((span) => source.text.slice(span.start, span.end)))];
  return {
    text: source.text.slice(passage.start, passage.end),
    start: passage.start,
    end: passage.end,
    ...(passage.pages ? { pages: passage.pages } : {}),
    matched,
    score: scores[best] ?? 0,
    coverage: held.size / query.length,
  };
}
