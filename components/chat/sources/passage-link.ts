/**
 * Where a cited passage is (docs/research.md, "Checking citations"): a PDF opens at the passage's
 * page (`#page=N`, which browsers' PDF viewers follow); a web page opens with a text fragment
 * (`#:~:text=`, https://wicg.github.io/scroll-to-text-fragment/) of the passage's first words, which
 * the browser scrolls to and highlights.
 */
import type { CitedPassage } from "@/lib/protocol/citations";

/** How many of the passage's first words the text fragment names: enough to be unique on a page. */
const FRAGMENT_WORDS = 8;
/** At most this many characters: text without spaces between words (Japanese, Chinese) is cut there. */
const FRAGMENT_CHARS = 40;

const withoutHash = (href: string) => href.replace(/#.*$/s, "");

/** `href` opened at PDF page `page`. */
export function pageHref(href: string, page: number): string {
  return `${withoutHash(href)}#page=${page}`;
}

/**
 * A text directive's term, percent-encoded as the text-fragment spec asks: besides what a URI
 * component escapes, `-` (prefix/suffix marks), `,` (term separator) and `&` (directive separator).
 */
export function fragmentTerm(text: string): string {
  return encodeURIComponent(text).replace(/-/g, "%2D");
}

/**
 * The first words of a passage as the page shows them: Markdown marks the reader added (headings,
 * emphasis, link targets, table bars) dropped, whitespace collapsed. A fragment matches whole words,
 * so a word the passage cut at its start is left out.
 */
export function fragmentStart(passage: string, cutAtStart: boolean): string {
  const plain = passage
    .replace(/\]\([^)]*\)/g, " ")
    .replace(/[#*_`>|[\]]+/g, " ")
    .replace(/\s+/g, " ")
    .trim();
  const words = plain.split(" ").filter(Boolean);
  if (cutAtStart && words.length > 1) words.shift();
  let start = "";
  for (const word of words.slice(0, FRAGMENT_WORDS)) {
    const next = start ? `${start} ${word}` : word;
    if ([...next].length > FRAGMENT_CHARS) {
      // A first word longer than the limit is unspaced text: its first characters are enough.
      if (!start) start = [...word].slice(0, FRAGMENT_CHARS).join("");
      break;
    }
    start = next;
  }
  return start;
}

/** A web page's URL that scrolls to the passage's first words. */
export function textFragmentHref(href: string, passage: string, cutAtStart = false): string {
  const start = fragmentStart(passage, cutAtStart);
  return start ? `${withoutHash(href)}#:~:text=${fragmentTerm(start)}` : href;
}

const isPdf = (url: string) => {
  try {
    return new URL(url).pathname.toLowerCase().endsWith(".pdf");
  } catch {
    return false;
  }
};

/**
 * Where the passage of source `url` (opened at `href`) is: its page when it came from PDF pages,
 * the PDF or attached file itself when the page is not known, else the web page at its words.
 */
export function passageHref(url: string, href: string, passage: CitedPassage | null): string {
  if (!passage) return href;
  if (passage.pages) return pageHref(href, passage.pages.first);
  if (url.startsWith("attachment:") || isPdf(url)) return href;
  return textFragmentHref(href, passage.text, passage.start > 0);
}
