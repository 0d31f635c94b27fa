import type { TextItem, TextMarkedContent, TextStyle } from "pdfjs-dist/types/src/display/api";

/**
 * Turns one page's pdf.js text content into normalised text. Items are joined in content-stream
 * order (sorting by position would interleave the columns of multi-column layouts); a line ends
 * where pdf.js marks `hasEOL` or where horizontal text jumps to another baseline.
 */

/** A text item with the fields the join reads; the PDF worker sends exactly these. */
export type PageTextItem = Pick<TextItem, "str" | "dir" | "transform" | "width" | "height" | "fontName" | "hasEOL">;

/** The part of pdf.js's `TextContent` the join reads (a whole `TextContent` is one). */
export interface PageTextContent {
  items: readonly (PageTextItem | TextMarkedContent)[];
  styles: Record<string, Pick<TextStyle, "vertical">>;
}

/** Separates pages in the document text; every page but the last ends with it. */
export const PAGE_SEPARATOR = "\n\n";

/** A baseline move larger than this share of the font size starts a new line (sub/superscripts stay). */
const NEW_LINE_SHIFT = 0.5;

interface Placed {
  y: number;
  size: number;
}

/** Position of horizontal, unrotated text; undefined for vertical or rotated text (hasEOL rules there). */
function placement(item: PageTextItem, vertical: boolean): Placed | undefined {
  const [a = 0, b = 0, c = 0, d = 0, , f = 0] = item.transform as number[];
  if (vertical || a <= 0 || Math.abs(b) > 0.01 * a || Math.abs(c) > 0.5 * Math.abs(d)) return undefined;
  return { y: f, size: Math.abs(d) };
}

export function joinTextContent(content: PageTextContent): string {
  const lines: string[] = [];
  let line = "";
  let previous: Placed | undefined;
  for (const item of content.items) {
    if (!("str" in item)) continue; // marked-content boundaries carry no text
    const here = placement(item, content.styles[item.fontName]?.vertical === true);
    if (item.str !== "") {
      const size = Math.max(here?.size ?? 0, previous?.size ?? 0, 1);
      if (line !== "" && here && previous && Math.abs(here.y - previous.y) > NEW_LINE_SHIFT * size) {
        lines.push(line);
        line = "";
      }
      line += item.str;
      previous = here;
    }
    if (item.hasEOL) {
      lines.push(line);
      line = "";
    }
  }
  lines.push(line);
  return normalisePageText(lines.join("\n"));
}

/** Collapses runs of spaces, trims every line, keeps at most one blank line in a row, trims the page. */
export function normalisePageText(raw: string): string {
  return raw
    .replace(/\r\n?/g, "\n")
    .replaceAll("\0", "")
    .split("\n")
    .map((line) => line.replace(/[ \t\f\v\u00a0]+/g, " ").trim())
    .join("\n")
    .replace(/\n{3,}/g, "\n\n")
    .replace(/^\n+|\n+$/g, "");
}

/** What a page that pdf.js cannot read contributes to the text, so the reader knows text is missing. */
export function skippedPageText(pageNumber: number): string {
  return `[Page ${pageNumber} could not be read and was skipped.]`;
}
