import * as cheerio from "cheerio";
import type { AnyNode } from "domhandler";

/** HTML → readable text for the model: charset, noise removal, main content. */

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

function normaliseLabel(label: string): string {
  const lower = label
    .trim()
    .toLowerCase()
    .replace(/^["']|["']$/g, "");
  // WHATWG maps these legacy labels to the encodings TextDecoder knows.
  if (lower === "x-sjis" || lower === "sjis" || lower === "ms_kanji" || lower === "windows-31j") return "shift_jis";
  return lower;
}

function decoderFor(label: string | null | undefined): TextDecoder | null {
  if (!label) return null;
  try {
    return new TextDecoder(normaliseLabel(label));
  } catch {
    return null;
  }
}

/** `<meta charset>` or `<meta http-equiv="Content-Type" content="...; charset=...">` in the first 4 KB. */
export function sniffMetaCharset(bytes: Uint8Array): string | null {
  const head = Buffer.from(bytes.subarray(0, 4096)).toString("latin1");
  const direct = /<meta[^>]+charset\s*=\s*["']?\s*([\w.:-]+)/i.exec(head);
  return direct?.[1] ?? null;
}

/** Charset from Content-Type, else `<meta charset>`, else UTF-8. */
export function decodeHtml(bytes: Uint8Array, headerCharset: string | null): string {
  const decoder = decoderFor(headerCharset) ?? decoderFor(sniffMetaCharset(bytes)) ?? new TextDecoder("utf-8");
  return decoder.decode(bytes);
}

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
