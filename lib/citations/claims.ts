/**
 * The sentences of an answer that cite sources (docs/research.md, "Checking citations"): each
 * sentence of the Markdown answer that carries `[n]` markers, with its claim (the sentence without
 * markers or emphasis), where it lies in the answer, and the source numbers it cites. List items,
 * headings and table cells are sentences of their own; code is never a claim. Framework-free.
 */

/** A sentence of an answer that cites one or more sources. */
export interface CitedSentence {
  /** The sentence without its markers and Markdown emphasis. */
  claim: string;
  /** Where the sentence, markers included, lies in the answer. */
  start: number;
  end: number;
  /** The source numbers it cites, in the order cited, each once. */
  sources: number[];
}

interface Span {
  start: number;
  end: number;
}

/** `[1]`, `[1, 2]`, `[1,3]`; also a marker written as a link, `[1](https://…)`. */
const MARKER = /\[(\d+(?:\s*,\s*\d+)*)\](?:\([^)\s]*\))?/g;
const MARKER_AT = /^\s*\[\d+(?:\s*,\s*\d+)*\](?:\([^)\s]*\))?/;
/** How far a marker (a link's target included) reaches at most: where to look for one. */
const MARKER_REACH = 400;

/** The marker that starts at `at` (after spaces), if one does. */
function markerAt(mask: string, at: number, limit: number): RegExpExecArray | null {
  return MARKER_AT.exec(mask.slice(at, Math.min(limit, at + MARKER_REACH)));
}

/** Words that end in a full stop without ending the sentence. */
const ABBREVIATIONS = new Set(
  "e.g i.e al cf vs approx incl esp fig figs vol ch sec p pp mr mrs ms dr prof jr sr".split(" "),
);

/** Code, URLs and link targets masked (same length), so nothing in them ends a sentence or cites. */
function masked(answer: string): string {
  const hide = (text: string) => text.replace(/[^\n]/g, "\uE000");
  return (
    answer
      // fenced code blocks
      .replace(/^([ \t]*)(`{3,}|~{3,})[^\n]*(?:\n[\s\S]*?(?:\n[ \t]*\2[^\n]*(?=\n)|(?![\s\S]))|(?![\s\S]))/gm, hide)
      // inline code spans
      .replace(/(`+)(?!`)(?:[^\n]|\n(?![ \t]*\n))+?\1(?!`)/g, hide)
      // link targets and bare URLs
      .replace(/\]\(([^)\s]*)\)/g, (link, target: string) => (/^\d+$/.test(target) ? link : `](${hide(target)})`))
      .replace(/\b(?:https?|ftp):\/\/[^\s<>()\]]+[^\s<>()\].,;:!?'"]/g, hide)
  );
}

const SEPARATOR_ROW = /^\s*\|?\s*:?-{3,}:?\s*(?:\|\s*:?-{3,}:?\s*)*\|?\s*$/;

/** The stretches of the answer a sentence cannot cross: paragraphs, list items, headings, table cells. */
function blocksOf(mask: string): Span[] {
  const blocks: Span[] = [];
  const lines: Span[] = [];
  let at = 0;
  for (const line of mask.split("\n")) {
    lines.push({ start: at, end: at + line.length });
    at += line.length + 1;
  }
  const lineText = (line: Span) => mask.slice(line.start, line.end);
  const isTable = (index: number) => {
    const text = lineText(lines[index] ?? { start: 0, end: 0 });
    if (!text.includes("|")) return false;
    if (/^\s*\|/.test(text)) return true;
    const near = [lines[index - 1], lines[index + 1]].filter((line): line is Span => line !== undefined);
    return near.some((line) => SEPARATOR_ROW.test(lineText(line)) && lineText(line).includes("|"));
  };
  let open: Span | null = null;
  const close = () => {
    if (open && open.end > open.start) blocks.push(open);
    open = null;
  };
  for (const [index, line] of lines.entries()) {
    const text = lineText(line);
    if (/^\s*$/.test(text) || /^\uE000+$/.test(text.trim())) {
      close();
      continue;
    }
    if (isTable(index)) {
      close();
      if (SEPARATOR_ROW.test(text)) continue;
      let cell = line.start;
      for (let i = line.start; i <= line.end; i++) {
        if (i === line.end || (mask[i] === "|" && mask[i - 1] !== "\\")) {
          if (i > cell) blocks.push({ start: cell, end: i });
          cell = i + 1;
        }
      }
      continue;
    }
    // A line's own prefix: heading hashes, quote marks, list bullets or numbers.
    const prefix = /^\s*(?:>\s*)*(?:#{1,6}\s+|[-*+]\s+(?:\[[ xX]\]\s+)?|\d{1,9}[.)]\s+)?/.exec(text)?.[0] ?? "";
    // A thematic break or a setext heading's underline ends the block and is no sentence.
    if (/^\s*(?:-{3,}|\*{3,}|_{3,}|=+)\s*$/.test(text)) {
      close();
      continue;
    }
    const starts = /#|[-*+]\s|\d[.)]\s/.test(prefix);
    const body = { start: line.start + prefix.length, end: line.end };
    // A line that opens with a marker and goes on is an entry of a reference list, not a claim.
    const marker = MARKER_AT.exec(mask.slice(body.start, body.end));
    if (marker && mask.slice(body.start + marker[0].length, body.end).trim()) {
      close();
      continue;
    }
    if (starts) {
      close();
      open = body;
      if (prefix.includes("#")) close();
      continue;
    }
    if (open) open.end = body.end;
    else open = body;
  }
  close();
  return blocks;
}

/** Whether the full stop at `index` of `mask` ends a sentence. */
function endsSentence(mask: string, index: number, block: Span): boolean {
  // Followed by closing quotes or brackets, then space, a marker or the block's end: so never
  // inside a decimal, a version, a URL or a file name.
  let after = index + 1;
  while (after < block.end && /["'”’)\]*_]/.test(mask[after] ?? "")) after++;
  if (after < block.end && !/\s/.test(mask[after] ?? "") && !markerAt(mask, after, block.end)) return false;
  const word = /([\p{L}.]+)$/u.exec(mask.slice(Math.max(block.start, index - 12), index))?.[1] ?? "";
  const bare = word.replace(/^\.+/, "").toLowerCase();
  if (ABBREVIATIONS.has(bare) || /^(?:\p{L}\.)+\p{L}$/u.test(word)) {
    // An abbreviation ends a sentence only when a capitalised word follows … and even then rarely.
    return false;
  }
  // Followed by a lower-case word: the sentence goes on.
  const rest = mask.slice(after, Math.min(block.end, after + 40));
  const following = /^\s*(?:\[\d+(?:\s*,\s*\d+)*\]\s*)*(\S)/u.exec(rest)?.[1];
  return following === undefined || !/\p{Ll}/u.test(following);
}

/** The sentences of one block, markers after a sentence's end included in it. */
function sentencesOf(mask: string, block: Span): Span[] {
  const sentences: Span[] = [];
  let start = block.start;
  for (let i = block.start; i < block.end; i++) {
    const char = mask[i] ?? "";
    const ends =
      /[。！？]/.test(char) ||
      (/[!?]/.test(char) && (i + 1 >= block.end || /\s/.test(mask[i + 1] ?? "") || markerAt(mask, i + 1, block.end))) ||
      (char === "." && endsSentence(mask, i, block));
    if (!ends) continue;
    let end = i + 1;
    while (end < block.end && /[.!?。！？"'”’」』）)\]*_]/.test(mask[end] ?? "")) end++;
    // Markers right after the end belong to this sentence: "… in 1932. [1]".
    for (;;) {
      const marker = markerAt(mask, end, block.end);
      if (!marker) break;
      end += marker[0].length;
    }
    sentences.push({ start, end });
    start = end;
    i = end - 1;
  }
  sentences.push({ start, end: block.end });
  return sentences.map((span) => trimmed(mask, span)).filter((span) => span.end > span.start);
}

function trimmed(text: string, span: Span): Span {
  let { start, end } = span;
  while (start < end && /\s/.test(text[start] ?? "")) start++;
  while (end > start && /\s/.test(text[end - 1] ?? "")) end--;
  return { start, end };
}

/** The claim of a sentence: markers, emphasis, code ticks and link targets removed, spaces collapsed. */
function claimOf(answer: string, mask: string, span: Span): string {
  let text = "";
  const markers = new RegExp(MARKER.source, "g");
  const piece = mask.slice(span.start, span.end);
  let at = 0;
  for (const match of piece.matchAll(markers)) {
    text += answer.slice(span.start + at, span.start + (match.index ?? 0));
    at = (match.index ?? 0) + match[0].length;
  }
  text += answer.slice(span.start + at, span.end);
  return text
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, "$1")
    .replace(/(`+)([\s\S]*?[^`])\1(?!`)/g, "$2")
    .replace(/(\*\*|__|~~)(?=\S)([\s\S]*?\S)\1/g, "$2")
    .replace(/(^|[^\p{L}\p{N}*])\*(?=\S)([^*]*?\S)\*(?![\p{L}\p{N}*])/gu, "$1$2")
    .replace(/(^|[^\p{L}\p{N}_])_(?=\S)([^_]*?\S)_(?![\p{L}\p{N}_])/gu, "$1$2")
    .replace(/\s+/g, " ")
    .replace(/\s+([.,;:!?。、！？])/g, "$1")
    .trim();
}

/** Every sentence of `answer` that carries one or more `[n]` markers, in order. */
export function citedSentences(answer: string): CitedSentence[] {
  const mask = masked(answer);
  const cited: CitedSentence[] = [];
  for (const block of blocksOf(mask)) {
    for (const sentence of sentencesOf(mask, block)) {
      const sources: number[] = [];
      for (const match of mask.slice(sentence.start, sentence.end).matchAll(MARKER)) {
        for (const number of (match[1] ?? "").split(",")) {
          const n = Number(number.trim());
          if (n >= 1 && !sources.includes(n)) sources.push(n);
        }
      }
      if (sources.length === 0) continue;
      const claim = claimOf(answer, mask, sentence);
      if (claim.length === 0) continue;
      cited.push({ claim, start: sentence.start, end: sentence.end, sources });
    }
  }
  return cited;
}
