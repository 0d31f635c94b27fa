import * as cheerio from "cheerio";
import type { AnyNode, Element } from "domhandler";
import { renderMarkdown } from "./html-markdown";

/**
 * HTML → the text the model reads: the page's main content, its boilerplate removed, its structure
 * kept as light Markdown (`html-markdown.ts`). Bytes are decoded before this by `lib/text/charset.ts`.
 *
 * Boilerplate is what assistive technology calls it: the landmarks navigation, banner, contentinfo,
 * complementary and search, explicit (`role=…`) or implicit (`nav`; `header`/`footer` of the page
 * rather than of an article or section; `aside` outside an article), and blocks made mostly of links
 * (menus, breadcrumbs, tables of contents, "previous / next").
 */

export interface ExtractedPage {
  title: string;
  text: string;
}

const NEVER_TEXT =
  "script, style, noscript, template, head, svg, iframe, object, embed, button, select, textarea, input";
const BOILERPLATE = [
  "nav",
  '[role="navigation"]',
  '[role="banner"]',
  '[role="contentinfo"]',
  '[role="complementary"]',
  '[role="search"]',
  "[hidden]",
  '[aria-hidden="true"]',
].join(", ");
/** `header`/`footer` are the page's banner/contentinfo unless inside one of these (HTML-AAM). */
const SECTIONING = 'article, aside, main, nav, section, [role="main"]';
/** Blocks judged by their share of link text. */
const JUDGED_BLOCKS = new Set([
  "div",
  "section",
  "ul",
  "ol",
  "dl",
  "table",
  "p",
  "form",
  "fieldset",
  "details",
  "center",
]);
const HEADINGS = new Set(["h1", "h2", "h3", "h4", "h5", "h6"]);
/** Deeper than any real page; a deeper one (a hostile page) is read as plain text below it. */
const MAX_DEPTH = 200;
/** A block whose link text is more than this share of its text is a menu, not content. */
const MAX_LINK_DENSITY = 0.5;

const textLength = (text: string) => text.replace(/\s+/g, "").length;

/** The page's main content: `<main>`/`role=main`, else its one `<article>`, else the body. */
function mainContainer($: cheerio.CheerioAPI): Element | undefined {
  const main = $('main, [role="main"]').first().get(0);
  if (main) return main;
  const articles = $('article, [role="article"]');
  if (articles.length === 1) return articles.get(0);
  return $("body").get(0);
}

/** Removes the landmarks and, unless `keepLinkDense`, the blocks made mostly of links. */
function removeBoilerplate($: cheerio.CheerioAPI, container: Element, { keepLinkDense = false } = {}): void {
  const scope = $(container);
  scope.find(BOILERPLATE).remove();
  scope
    .find("header, footer")
    .filter((_, element) => $(element).parents(SECTIONING).length === 0)
    .remove();
  scope
    .find("aside")
    .filter((_, element) => $(element).parents("article").length === 0)
    .remove();
  // Permalink marks in headings ("Install¶"): in-page links with no word in them.
  scope
    .find("h1 a, h2 a, h3 a, h4 a, h5 a, h6 a")
    .filter((_, element) => ($(element).attr("href") ?? "").startsWith("#") && !/[\p{L}\p{N}]/u.test($(element).text()))
    .remove();
  if (keepLinkDense) return;
  const weights = new Map<AnyNode, Weight>();
  weigh(container, weights);
  removeLinkDense(container, weights, (node) => $(node).remove());
}

interface Weight {
  text: number;
  links: number;
}

/** Non-space characters under each element, and how many of them are link text (a heading's link is the heading). */
function weigh(node: AnyNode, weights: Map<AnyNode, Weight>): Weight {
  if (node.type === "text") return { text: textLength(node.data), links: 0 };
  if (node.type !== "tag" && node.type !== "root") return { text: 0, links: 0 };
  const weight = { text: 0, links: 0 };
  for (const child of node.children) {
    const part = weigh(child, weights);
    weight.text += part.text;
    weight.links += part.links;
  }
  if (node.type === "tag" && node.name === "a") weight.links = weight.text;
  if (node.type === "tag" && HEADINGS.has(node.name)) weight.links = 0;
  weights.set(node, weight);
  return weight;
}

/** Outermost first: a dense block goes whole; a content block is looked into for dense ones. */
function removeLinkDense(node: AnyNode, weights: Map<AnyNode, Weight>, remove: (node: AnyNode) => void): void {
  if (node.type !== "tag" && node.type !== "root") return;
  for (const child of [...node.children]) {
    if (child.type !== "tag") continue;
    const weight = weights.get(child);
    if (JUDGED_BLOCKS.has(child.name) && weight && weight.text > 0 && weight.links / weight.text > MAX_LINK_DENSITY) {
      remove(child);
    } else {
      removeLinkDense(child, weights, remove);
    }
  }
}

/** All text under a node, without recursion. */
function textContent(node: AnyNode): string {
  let text = "";
  const stack = [node];
  for (let next = stack.pop(); next; next = stack.pop()) {
    if (next.type === "text") text += next.data;
    else if (next.type === "tag" || next.type === "root") {
      for (let i = next.children.length - 1; i >= 0; i--) stack.push(next.children[i] as AnyNode);
    }
  }
  return text;
}

/** Below MAX_DEPTH an element keeps only its text, so no later walk recurses deeper than that. */
function flattenDeep($: cheerio.CheerioAPI): void {
  const stack: [AnyNode, number][] = [[$.root().get(0) as AnyNode, 0]];
  for (let next = stack.pop(); next; next = stack.pop()) {
    const [node, depth] = next;
    if (node.type !== "tag" && node.type !== "root") continue;
    if (depth >= MAX_DEPTH) $(node).text(textContent(node));
    else for (const child of node.children) stack.push([child, depth + 1]);
  }
}

/**
 * How a page is read, in order, until one gives text other than links: its main content; the body, when the main
 * content had none (a `<main>` holding only a script's placeholder); the body with its link-dense
 * blocks kept, when the page is made of links (a generated index, a texinfo node that is a heading,
 * a sentence and its menu). Only the first is the rule; the others keep such a page from reading
 * as empty.
 */
const READINGS = [
  { container: "main", keepLinkDense: false },
  { container: "body", keepLinkDense: false },
  { container: "body", keepLinkDense: true },
  // Text after `</body></html>` (groff's grohtml writes pages so), which browsers show in the body.
  { container: "document", keepLinkDense: true },
] as const;

function parse(html: string): cheerio.CheerioAPI {
  // htmlparser2, not parse5: parse5 slows down with the square of the nesting depth, and a hostile page
  // could hold the server for minutes; htmlparser2 is linear and closes the usual implied end tags.
  const $ = cheerio.load(html, { xml: { xmlMode: false, decodeEntities: true } });
  flattenDeep($);
  return $;
}

export function extractHtmlText(html: string): ExtractedPage {
  let $ = parse(html);
  const title = $("title").first().text().replace(/\s+/g, " ").trim();
  let text = "";
  for (const [index, reading] of READINGS.entries()) {
    if (index > 0) $ = parse(html);
    $(NEVER_TEXT).remove();
    const container =
      reading.container === "main"
        ? mainContainer($)
        : reading.container === "body"
          ? $("body").get(0)
          : ($.root().get(0) as Element | undefined);
    if (!container) return { title, text: renderMarkdown($.root().get(0)) };
    // The body read the same way again would give the same nothing.
    if (index === 1 && container === mainContainer($)) continue;
    removeBoilerplate($, container, reading);
    text = renderMarkdown(container);
    // Link text alone ("Skip to content") is not the page's text.
    const { text: chars, links } = weigh(container, new Map());
    if (chars > links) break;
  }
  return { title, text };
}
