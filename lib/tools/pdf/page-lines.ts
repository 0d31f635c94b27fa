import type { TextItem, TextMarkedContent, TextStyle } from "pdfjs-dist/types/src/display/api";
import { hasRtlLetter, isMostlyRtl, isWide } from "./compat-forms";

/**
 * Groups one page's pdf.js text items into lines, in content-stream order. A line ends where pdf.js
 * marks `hasEOL` or where horizontal text jumps to another baseline, except that upright glyphs
 * stacked one below the other (vertical writing printed glyph by glyph, as Chrome does) form one
 * line per column. A line whose letters are mostly right-to-left is put in logical order.
 */

/** A text item with the fields the join reads; the PDF worker sends exactly these. */
export type PageTextItem = Pick<TextItem, "str" | "dir" | "transform" | "width" | "height" | "fontName" | "hasEOL">;

/** The part of pdf.js's `TextContent` the join reads (a whole `TextContent` is one). */
export interface PageTextContent {
  items: readonly (PageTextItem | TextMarkedContent)[];
  /** pdf.js names a fixed-pitch font's family "monospace". */
  styles: Record<string, Pick<TextStyle, "vertical"> & Partial<Pick<TextStyle, "fontFamily">>>;
}

/** Where a line sits on the page (PDF units, y upwards), for reading order; absent for rotated text. */
export interface LineBox {
  x0: number;
  x1: number;
  /** Baseline of its first and last glyph (equal for horizontal text; a column runs downwards). */
  top: number;
  bottom: number;
  size: number;
}

export interface Line {
  text: string;
  box?: LineBox;
  /** A column of vertical writing. */
  vertical: boolean;
  /** Spaces before the text: a monospaced line's indentation within its block (code, preformatted text). */
  indent?: number;
  /** Horizontal text all in fixed-pitch fonts: the width of one character. */
  monoWidth?: number;
}

/** A baseline move larger than this share of the font size starts a new line (sub/superscripts stay). */
const NEW_LINE_SHIFT = 0.5;
/** A glyph this far (in font sizes) below the previous one at the same x continues its column. */
const STACK_MIN = 0.5;
const STACK_MAX = 2.6;
/** A column gap wider than this (in font sizes) held a space the producer did not draw. */
const STACK_SPACE = 1.5;

interface Placed {
  x: number;
  y: number;
  size: number;
}

interface Piece {
  str: string;
  at?: Placed;
  width: number;
  mono: boolean;
}

/** Position of horizontal, unrotated text; undefined for vertical-font or rotated text (hasEOL rules there). */
function placement(item: PageTextItem, vertical: boolean): Placed | undefined {
  const [a = 0, b = 0, c = 0, d = 0, e = 0, f = 0] = item.transform as number[];
  if (vertical || a <= 0 || Math.abs(b) > 0.01 * a || Math.abs(c) > 0.5 * Math.abs(d)) return undefined;
  return { x: e, y: f, size: Math.abs(d) };
}

/** True when `next` sits right below `last`, both upright wide glyphs: the same column of vertical writing. */
function stacksBelow(last: Piece, next: Piece): boolean {
  if (!last.at || !next.at || !isWide(last.str) || !isWide(next.str)) return false;
  const size = Math.max(last.at.size, next.at.size);
  const drop = last.at.y - next.at.y;
  return (
    [...last.str].length === 1 &&
    Math.abs(last.at.x - next.at.x) <= 0.25 * size &&
    drop >= STACK_MIN * size &&
    drop <= STACK_MAX * size
  );
}

/**
 * pdf.js gives each item's text in logical order but the items of a line in visual order, left to
 * right: a right-to-left line reads its items right to left. A left-to-right run inside it (a number,
 * a Latin word) keeps its order, but punctuation at its edges belongs to the surrounding line: ".2024"
 * at the left end of a Hebrew sentence reads "2024.".
 */
function rtlLineText(pieces: Piece[]): string {
  const ordered = pieces.map((piece, index) => ({ piece, index }));
  ordered.sort((p, q) => (q.piece.at?.x ?? 0) - (p.piece.at?.x ?? 0) || p.index - q.index);
  return ordered
    .map(({ piece }) => {
      if (hasRtlLetter(piece.str)) return piece.str;
      const match = /^([^\p{L}\p{N}]*)(.*?)([^\p{L}\p{N}]*)$/su.exec(piece.str);
      const [, left = "", core = "", right = ""] = match ?? [];
      if (core === "") return piece.str;
      return [...right].reverse().join("") + core + [...left].reverse().join("");
    })
    .join("");
}

function makeLine(pieces: Piece[], vertical: boolean): Line {
  const joined = pieces.map((piece) => piece.str).join("");
  const text = !vertical && isMostlyRtl(joined) ? rtlLineText(pieces) : joined;
  const placed = pieces.filter((piece) => piece.at);
  if (placed.length === 0) return { text, vertical };
  const first = placed[0]!.at!;
  const last = placed.at(-1)!.at!;
  const size = Math.max(...placed.map((piece) => piece.at!.size));
  const x0 = Math.min(...placed.map((piece) => piece.at!.x));
  const x1 = vertical ? x0 + size : Math.max(...placed.map((piece) => piece.at!.x + piece.width));
  const line: Line = { text, vertical, box: { x0, x1, top: first.y, bottom: vertical ? last.y : first.y, size } };
  const chars = placed.reduce((sum, piece) => sum + [...piece.str].length, 0);
  const width = placed.reduce((sum, piece) => sum + piece.width, 0);
  if (!vertical && pieces.every((piece) => piece.mono) && chars > 0 && width > 0) line.monoWidth = width / chars;
  return line;
}

/** Indentation kept is capped: past this, a wide gap is layout, not indentation. */
const MAX_INDENT = 40;
/** A monospaced line this many font sizes below the last one has a blank line before it. */
const BLANK_LINE_GAP = 1.8;
/** A monospaced line more than this many font sizes below the last one starts another block. */
const BLOCK_GAP = 4;

/**
 * Monospaced lines (code, preformatted text) keep their layout: producers such as groff and
 * Ghostscript position an indented line further right instead of writing spaces, and move down two
 * lines for a blank one; the spaces Chrome writes would be trimmed with the rest of the line's
 * whitespace. A line's indent is its distance from the left edge of its block of consecutive
 * monospaced lines, in characters, plus the spaces it starts with. A block ends at a line in another
 * font, at a jump upwards (another column) and at a wide gap; blank lines do not end it.
 */
function layOutMonospacedBlocks(lines: Line[]): Line[] {
  const out: Line[] = [];
  let block: Line[] = [];
  const flush = () => {
    if (block.length === 0) return;
    const left = Math.min(...block.map((line) => line.box!.x0));
    const widths = block.map((line) => line.monoWidth!).sort((a, b) => a - b);
    const charWidth = widths[Math.floor(widths.length / 2)]!;
    for (const line of block) {
      const written = /^ */.exec(line.text)![0].length;
      line.indent = Math.min(MAX_INDENT, Math.round((line.box!.x0 - left) / charWidth) + written);
    }
    block = [];
  };
  for (const line of lines) {
    const box = line.box;
    if (line.text === "" && !box) {
      out.push(line);
      continue;
    }
    if (!box || line.monoWidth === undefined) {
      flush();
      out.push(line);
      continue;
    }
    const previous = block.at(-1)?.box;
    const drop = previous ? previous.top - box.top : 0;
    const size = Math.max(box.size, previous?.size ?? 0);
    if (previous && (drop < 0 || drop > BLOCK_GAP * size)) flush();
    else if (previous && drop > BLANK_LINE_GAP * size && out.at(-1) === block.at(-1)) {
      out.push({ text: "", vertical: false });
    }
    block.push(line);
    out.push(line);
  }
  flush();
  return out;
}

export function pageLines(content: PageTextContent): Line[] {
  const lines: Line[] = [];
  let pieces: Piece[] = [];
  let vertical = false;
  /** Line ends pdf.js marked since the last text; more than one leaves blank lines. */
  let breaks = 0;
  const close = () => {
    if (pieces.length > 0) lines.push(makeLine(pieces, vertical));
    pieces = [];
    vertical = false;
  };
  for (const item of content.items) {
    if (!("str" in item)) continue; // marked-content boundaries carry no text
    if (item.str !== "") {
      const style = content.styles[item.fontName];
      const piece: Piece = {
        str: item.str,
        at: placement(item, style?.vertical === true),
        width: item.width,
        mono: style?.fontFamily === "monospace",
      };
      const last = pieces.at(-1);
      if (last && (vertical || pieces.length === 1) && stacksBelow(last, piece)) {
        vertical = true;
        const size = Math.max(last.at!.size, piece.at!.size);
        if (last.at!.y - piece.at!.y > STACK_SPACE * size) pieces.push({ ...last, str: " " });
      } else if (last) {
        const size = Math.max(piece.at?.size ?? 0, last.at?.size ?? 0, 1);
        const moved = piece.at && last.at && Math.abs(piece.at.y - last.at.y) > NEW_LINE_SHIFT * size;
        if (breaks > 0 || moved) close();
        for (; breaks > 1; breaks--) lines.push({ text: "", vertical: false });
      }
      breaks = 0;
      pieces.push(piece);
    }
    if (item.hasEOL) breaks++;
  }
  close();
  return layOutMonospacedBlocks(lines);
}
