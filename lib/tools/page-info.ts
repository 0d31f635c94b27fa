/**
 * The `---page-info---` footer a paged tool result ends with when more text follows: the data
 * (`PageInfo`) and its one text form. Tools hand the data on; `formatPageInfo` writes the footer
 * the model reads; `parsePageInfo` reads it back (benchmarks and tests that follow tokens through
 * observation text). Free of Node and React imports, so the browser can use it too.
 */

export const PAGE_INFO_MARKER = "---page-info---";

/** Fixed, language-independent keys a PDF page adds after next_token: how PDF tokens are meant to be kept. */
export const PDF_FOOTER_KEYS = [
  "token_replaces_previous: true",
  "keep_token_in_answer_if_stopped: true",
  "resume_with_continue_from_only: true",
] as const;

export interface SourcePages {
  /** 1-based first and last page of the PDF this result's text comes from. */
  first: number;
  last: number;
  total: number;
}

/** What follows a page that is not the last: the token that reads on, and for a PDF the pages read. */
export interface PageInfo {
  nextToken: string;
  /** Set by pdf_to_text; its footer then also carries the PDF keys. */
  sourcePages?: SourcePages;
}

/** The footer appended to a page's text: `\n\n---page-info---\nhas_more: true\nnext_token: …`. */
export function formatPageInfo(info: PageInfo): string {
  const lines = [PAGE_INFO_MARKER, "has_more: true", `next_token: ${info.nextToken}`];
  if (info.sourcePages) {
    const { first, last, total } = info.sourcePages;
    lines.push(`source_pages: ${first}-${last}/${total}`, ...PDF_FOOTER_KEYS);
  }
  return `\n\n${lines.join("\n")}`;
}

/** A result's text and its footer, if it ends with one. */
export interface ParsedPage {
  body: string;
  pageInfo: PageInfo | null;
}

const SOURCE_PAGES = /^(\d+)-(\d+)\/(\d+)$/;

/**
 * Splits a result into body and footer. Only a footer `formatPageInfo` would write counts, so a
 * body that merely mentions the marker is all body.
 */
export function parsePageInfo(text: string): ParsedPage {
  const at = text.lastIndexOf(`\n\n${PAGE_INFO_MARKER}\n`);
  if (at === -1) return { body: text, pageInfo: null };
  const footer = text.slice(at);
  const fields = new Map<string, string>();
  for (const line of footer.split("\n").slice(3)) {
    const colon = line.indexOf(": ");
    if (colon > 0) fields.set(line.slice(0, colon), line.slice(colon + 2));
  }
  const nextToken = fields.get("next_token");
  const pages = SOURCE_PAGES.exec(fields.get("source_pages") ?? "");
  if (!nextToken) return { body: text, pageInfo: null };
  const pageInfo: PageInfo = pages
    ? { nextToken, sourcePages: { first: Number(pages[1]), last: Number(pages[2]), total: Number(pages[3]) } }
    : { nextToken };
  return formatPageInfo(pageInfo) === footer ? { body: text.slice(0, at), pageInfo } : { body: text, pageInfo: null };
}
