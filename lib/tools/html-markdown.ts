import type { AnyNode, Element } from "domhandler";

/**
 * A DOM subtree as light Markdown: headings `#`…, list items `-` and `1.` (an `ol`'s `start` and an
 * `li`'s `value` respected), tables as `| a | b |` rows with a separator under the header row, `<pre>`
 * fenced with its indentation and blank lines intact, inline `<code>` in backticks, blocks separated
 * by a blank line. Emphasis and link targets are left out: the model reads the words.
 */

const BLOCKS = new Set([
  "address",
  "article",
  "aside",
  "blockquote",
  "body",
  "caption",
  "center",
  "dd",
  "details",
  "dialog",
  "div",
  "dl",
  "dt",
  "fieldset",
  "figcaption",
  "figure",
  "footer",
  "form",
  "h1",
  "h2",
  "h3",
  "h4",
  "h5",
  "h6",
  "header",
  "hgroup",
  "hr",
  "legend",
  "li",
  "main",
  "menu",
  "nav",
  "ol",
  "p",
  "pre",
  "search",
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

const isTag = (node: AnyNode): node is Element => node.type === "tag";
const childrenOf = (node: AnyNode): AnyNode[] => (node.type === "tag" || node.type === "root" ? node.children : []);

/** All the text under a node, as written (for `<pre>` and `<code>`). */
function rawText(node: AnyNode): string {
  if (node.type === "text") return node.data;
  return childrenOf(node).map(rawText).join("");
}

/** A code span with a backtick run longer than any inside it. */
function codeSpan(code: string): string {
  const text = code.replace(/\s+/g, " ").trim();
  if (!text) return "";
  const longest = Math.max(0, ...(text.match(/`+/g) ?? []).map((run) => run.length));
  const fence = "`".repeat(longest + 1);
  return longest > 0 ? `${fence} ${text} ${fence}` : `${fence}${text}${fence}`;
}

function codeBlock(pre: Element): string {
  const code = rawText(pre)
    .replace(/\r\n?/g, "\n")
    .replace(/^\n+|\s+$/g, "");
  if (!code) return "";
  const classes = `${pre.attribs.class ?? ""} ${childrenOf(pre).filter(isTag)[0]?.attribs.class ?? ""}`;
  const language = /\b(?:language|lang)-([\w+#.-]+)/.exec(classes)?.[1] ?? "";
  const longest = Math.max(2, ...(code.match(/^`+/gm) ?? []).map((run) => run.length));
  const fence = "`".repeat(longest + 1);
  return `${fence}${language}\n${code}\n${fence}`;
}

/** Collects inline text into paragraphs and finished blocks in order. */
class Blocks {
  readonly done: string[] = [];
  #inline = "";

  /** HTML's whitespace collapses (a no-break space reads as a space); an ideographic space is text. */
  text(text: string): void {
    this.#inline += text.replace(/[ \t\n\f\r\u00a0]+/g, " ");
  }

  lineBreak(): void {
    this.#inline += "\n";
  }

  /** Ends the paragraph being collected, if it has any text. */
  flush(): void {
    const paragraph = this.#inline
      .split("\n")
      .map((line) => line.replace(/ {2,}/g, " ").replace(/^ | $/g, ""))
      .filter(Boolean)
      .join("\n");
    if (paragraph) this.done.push(paragraph);
    this.#inline = "";
  }

  push(block: string): void {
    this.flush();
    if (block) this.done.push(block);
  }
}

/** A node's content on one line (a heading, a table cell). */
function oneLine(node: AnyNode): string {
  return renderBlocks(childrenOf(node))
    .join(" ")
    .replace(/\s*\n\s*/g, " ");
}

function listBlock(list: Element): string {
  const ordered = list.name === "ol";
  let number = Number.parseInt(list.attribs.start ?? "1", 10);
  if (!Number.isFinite(number)) number = 1;
  const lines: string[] = [];
  for (const item of childrenOf(list)) {
    if (!isTag(item)) {
      const stray = item.type === "text" ? item.data.trim() : "";
      if (stray) lines.push(stray);
      continue;
    }
    if (item.name !== "li") {
      lines.push(...renderBlocks([item]));
      continue;
    }
    const value = Number.parseInt(item.attribs.value ?? "", 10);
    if (ordered && Number.isFinite(value)) number = value;
    const marker = ordered ? `${number++}. ` : "- ";
    const [first = "", ...rest] = renderBlocks(childrenOf(item)).join("\n").split("\n");
    const indent = " ".repeat(marker.length);
    lines.push(`${marker}${first}`.trimEnd(), ...rest.map((line) => (line ? indent + line : line)));
  }
  return lines.join("\n");
}

function tableBlock(table: Element): string {
  const rows: { cells: string[]; header: boolean }[] = [];
  const visit = (node: AnyNode, inHead: boolean) => {
    for (const child of childrenOf(node)) {
      if (!isTag(child) || child.name === "table") continue;
      if (child.name === "tr") {
        const cells = childrenOf(child).filter((cell) => isTag(cell) && (cell.name === "td" || cell.name === "th"));
        const header = inHead || (cells.length > 0 && cells.every((cell) => isTag(cell) && cell.name === "th"));
        rows.push({ cells: cells.map((cell) => oneLine(cell).replace(/\|/g, "\\|")), header });
      } else {
        visit(child, inHead || child.name === "thead");
      }
    }
  };
  visit(table, false);
  if (rows.length === 0) return "";
  const caption = childrenOf(table).find((child) => isTag(child) && child.name === "caption");
  const width = Math.max(...rows.map((row) => row.cells.length));
  const line = (cells: string[]) =>
    `| ${[...cells, ...Array(width - cells.length).fill("")].join(" | ")} |`.replace(/ {2,}/g, " ");
  const out = rows.map((row) => line(row.cells));
  // The separator goes under the leading header rows, as Markdown wants; a table without one gets none.
  const headerRows = rows.findIndex((row) => !row.header);
  if (headerRows > 0) out.splice(headerRows, 0, line(Array(width).fill("---")));
  return [caption ? oneLine(caption) : "", out.join("\n")].filter(Boolean).join("\n");
}

function render(node: AnyNode, out: Blocks): void {
  if (node.type === "text") {
    out.text(node.data);
    return;
  }
  if (!isTag(node)) {
    for (const child of childrenOf(node)) render(child, out);
    return;
  }
  const name = node.name;
  if (/^h[1-6]$/.test(name)) {
    const heading = oneLine(node);
    out.push(heading ? `${"#".repeat(Number(name[1]))} ${heading}` : "");
  } else if (name === "pre") {
    out.push(codeBlock(node));
  } else if (name === "code" || name === "kbd" || name === "samp") {
    out.text(codeSpan(rawText(node)));
  } else if (name === "br") {
    out.lineBreak();
  } else if (name === "ul" || name === "ol" || name === "menu") {
    out.push(listBlock(node));
  } else if (name === "table") {
    out.push(tableBlock(node));
  } else if (name === "blockquote") {
    out.push(
      renderBlocks(node.children)
        .join("\n\n")
        .split("\n")
        .map((line) => `> ${line}`.trimEnd())
        .join("\n"),
    );
  } else if (name === "hr") {
    out.flush();
  } else if (BLOCKS.has(name)) {
    out.flush();
    for (const child of node.children) render(child, out);
    out.flush();
  } else {
    for (const child of node.children) render(child, out);
  }
}

function renderBlocks(nodes: AnyNode[]): string[] {
  const out = new Blocks();
  for (const node of nodes) render(node, out);
  out.flush();
  return out.done;
}

/** The subtree's text: its blocks separated by blank lines. */
export function renderMarkdown(node: AnyNode | undefined): string {
  return node ? renderBlocks([node]).join("\n\n") : "";
}
