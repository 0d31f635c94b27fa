import * as cheerio from "cheerio";
import type { AnyNode } from "domhandler";

/** HTML → readable text for the model: noise removal, main content (bytes are decoded by `lib/text/charset.ts`). */

const NOISE = "script, style, noscript, template, head, nav, footer, aside, svg, iframe, object, embed";
const BLOCK = new Set([
  "address",
  "article",
  "blockquote",
  "br",
  "caption",
  "dd",
  "details",
  "div",
  "dl",
  "dt",
  "figcaption",
  "figure",
  "form",
  "h1",
  "h2",
  "h3",
  "h4",
  "h5",
  "h6",
  "header",
  "hr",
  "li",
  "main",
  "ol",
  "p",
  "pre",
  "section",
  "summary",
  "table",
  "tbody",
  "td",
  "tfoot",
  "th",
  "thead",
  "tr",
  "ul",
]);

function rawText(node: AnyNode): string {
  if (node.type === "text") return node.data;
  if (node.type === "tag" || node.type === "root") return node.children.map(rawText).join("");
  return "";
}

function collectText(node: AnyNode, out: string[]): void {
  if (node.type === "text") {
    out.push(node.data.replace(/\s+/g, " "));
    return;
  }
  if (node.type !== "tag" && node.type !== "root") return;
  const name = node.type === "tag" ? node.name.toLowerCase() : "";
  if (name === "pre") {
    out.push("\n", rawText(node), "\n");
    return;
  }
  const block = BLOCK.has(name);
  if (block) out.push("\n");
  for (const child of node.children) collectText(child, out);
  if (block) out.push("\n");
}

/** Lines trimmed, blank lines removed (the seed's "blank lines collapsed"). */
export function cleanLines(text: string): string {
  return text
    .split("\n")
    .map((line) => line.replace(/[ \t\u00a0]+/g, " ").trim())
    .filter(Boolean)
    .join("\n");
}

export interface ExtractedPage {
  title: string;
  text: string;
}

export function extractHtmlText(html: string): ExtractedPage {
  const $ = cheerio.load(html);
  const title = $("title").first().text().replace(/\s+/g, " ").trim();
  $(NOISE).remove();
  const container = $("article").first().get(0) ?? $("main").first().get(0) ?? $("body").get(0) ?? $.root().get(0);
  const parts: string[] = [];
  if (container) collectText(container, parts);
  return { title, text: cleanLines(parts.join("")) };
}
