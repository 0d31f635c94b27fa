/**
 * A stored file's text cut into the library's passages (docs/architecture.md, "The library index"):
 * pieces of about `PASSAGE_CHARS` characters ending where a paragraph, line or sentence ends when one
 * is near, each with where it starts in the text. A PDF is cut page by page, so a passage never spans
 * two pages and carries its page. Every character of the text is in exactly one passage: the
 * passages joined give the text back. Framework-free.
 */

export const PASSAGE_CHARS = 1200;

export interface Passage {
  text: string;
  /** Where the passage starts in the text it was cut from, in UTF-16 code units. */
  start: number;
  /** The PDF page (1-based) the passage is on; null for other files. */
  page: number | null;
}

/** Where a piece that may end by `limit` ends best: after a paragraph, else a line, else a sentence, else a space. */
function cutPoint(text: string, from: number, limit: number): number {
  if (limit >= text.length) return text.length;
  const window = text.slice(from, limit);
  const floor = Math.floor((limit - from) / 2);
  for (const mark of [/\n\s*\n/g, /\n/g, /[.!?。！？](?=\s|$)|[。！？]/g, /\s/g]) {
    let best = -1;
    for (const match of window.matchAll(mark)) {
      const end = match.index + match[0].length;
      if (end >= floor) best = end;
    }
    if (best > 0) return from + best;
  }
  // No break in reach (one long token, or text without spaces): cut at the limit, never inside a surrogate pair.
  const code = text.charCodeAt(limit - 1);
  return code >= 0xd800 && code <= 0xdbff ? limit + 1 : limit;
}

/** The passages of one text (a page of a PDF: `page`; any other file: null), starting at `base` in the whole. */
export function cutPassages(text: string, { base = 0, page = null }: { base?: number; page?: number | null } = {}) {
  const passages: Passage[] = [];
  let at = 0;
  while (at < text.length) {
    const end = cutPoint(text, at, at + PASSAGE_CHARS);
    passages.push({ text: text.slice(at, end), start: base + at, page });
    at = end;
  }
  return passages.filter((passage) => passage.text.trim() !== "");
}

/** The passages of a PDF's pages (their texts in order, as `pdf_to_text` reads them). */
export function pdfPassages(pages: string[]): Passage[] {
  const passages: Passage[] = [];
  let base = 0;
  pages.forEach((text, index) => {
    passages.push(...cutPassages(text, { base, page: index + 1 }));
    base += text.length;
  });
  return passages;
}
