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
  return normaliseLines(readingOrder(pageLines(content)));
}

/**
 * Collapses runs of spaces, trims every line, keeps at most one blank line in a row, trims the page,
 * and normalises compatibility forms.
 */
export function normalisePageText(raw: string): string {
  return normaliseLines([{ text: raw }]);
}

/** `normalisePageText` for lines, each trimmed and then given its `indent` (monospaced text, `page-lines.ts`). */
function normaliseLines(lines: readonly { text: string; indent?: number }[]): string {
  return normaliseCompatForms(
    lines
      .flatMap(({ text, indent = 0 }) =>
        text
          .replaceAll("\0", "")
          .split(/\r\n?|\n/)
          .map((part, index) => {
            const tidy = part.replace(/[ \t\f\v\u00a0]+/g, " ").trim();
            return index === 0 && tidy !== "" ? " ".repeat(indent) + tidy : tidy;
          }),
      )
      .join("\n")
      .replace(/\n{3,}/g, "\n\n")
      .replace(/^\n+|\n+$/g, ""),
  );
}

/** What a page that pdf.js cannot read contributes to the text, so the reader knows text is missing. */
export function skippedPageText(pageNumber: number): string {
  return `[Page ${pageNumber} could not be read and was skipped.]`;
}
