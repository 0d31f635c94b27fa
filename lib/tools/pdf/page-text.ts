import { normaliseCompatForms } from "./compat-forms";
import { type PageTextContent, pageLines } from "./page-lines";
import { readingOrder } from "./reading-order";

/**
 * Turns one page's pdf.js text content into normalised text: lines (`page-lines.ts`) in reading
 * order (`reading-order.ts`), compatibility forms normalised (`compat-forms.ts`). Line-end hyphens
 * are joined afterwards with the words of the pages around (`hyphens.ts`, in `pdf-document.ts`).
 */

export type { PageTextContent, PageTextItem } from "./page-lines";

/** Separates pages in the document text; every page but the last ends with it. */
export const PAGE_SEPARATOR = "\n\n";

export function joinTextContent(content: PageTextContent): string {
  return normalisePageText(
    readingOrder(pageLines(content))
      .map((line) => line.text)
      .join("\n"),
  );
}

/**
 * Collapses runs of spaces, trims every line, keeps at most one blank line in a row, trims the page,
 * and normalises compatibility forms.
 */
export function normalisePageText(raw: string): string {
  return normaliseCompatForms(
    raw
      .replace(/\r\n?/g, "\n")
      .replaceAll("\0", "")
      .split("\n")
      .map((line) => line.replace(/[ \t\f\v\u00a0]+/g, " ").trim())
      .join("\n")
      .replace(/\n{3,}/g, "\n\n")
      .replace(/^\n+|\n+$/g, ""),
  );
}

/** What a page that pdf.js cannot read contributes to the text, so the reader knows text is missing. */
export function skippedPageText(pageNumber: number): string {
  return `[Page ${pageNumber} could not be read and was skipped.]`;
}
