/**
 * LaTeX in answers, for Streamdown's KaTeX plugin (remark-math): models write `\(…\)` and `\[…\]`
 * as often as `$…$` and `$$…$$`, and prose writes dollar amounts. Code (fenced blocks and inline
 * spans) is never touched.
 */

const FENCE = /^ {0,3}(`{3,}|~{3,})/;
const CODE_SPAN = /(`+)[\s\S]*?\1/g;
// An unescaped `\[` … `\]` or `\(` … `\)`; the backslash itself must not be escaped.
const DISPLAY = /(?<!\\)\\\[([\s\S]+?)(?<!\\)\\\]/g;
const INLINE = /(?<!\\)\\\(([\s\S]+?)(?<!\\)\\\)/g;

function delimitersOutsideCodeSpans(text: string): string {
  let out = "";
  let last = 0;
  for (const span of text.matchAll(CODE_SPAN)) {
    out += rewriteDelimiters(text.slice(last, span.index));
    out += span[0];
    last = span.index + span[0].length;
  }
  return out + rewriteDelimiters(text.slice(last));
}

function rewriteDelimiters(prose: string): string {
  return (
    prose
      // A display formula alone on its lines stays a block; elsewhere (a list item, a table cell) it is inline.
      .replace(DISPLAY, (whole, body: string, offset: number, all: string) => {
        const alone =
          (offset === 0 || all[offset - 1] === "\n") && /^[ \t]*(\n|$)/.test(all.slice(offset + whole.length));
        return alone ? `$$\n${body.trim()}\n$$` : `$$${body.trim()}$$`;
      })
      .replace(INLINE, (_whole, body: string) => `$$${body.trim()}$$`)
  );
}

/** `\[…\]` → `$$…$$` (a block when alone on its lines) and `\(…\)` → inline `$$…$$`, outside code. */
export function normalizeTexDelimiters(markdown: string): string {
  if (!markdown.includes("\\[") && !markdown.includes("\\(")) return markdown;
  const lines = markdown.split("\n");
  const out: string[] = [];
  let prose: string[] = [];
  let fence: string | null = null;
  const flush = () => {
    if (prose.length > 0) out.push(delimitersOutsideCodeSpans(prose.join("\n")));
    prose = [];
  };
  for (const line of lines) {
    const marker = FENCE.exec(line)?.[1];
    if (fence === null && marker) {
      flush();
      fence = marker;
      out.push(line);
    } else if (fence !== null) {
      out.push(line);
      if (marker && marker[0] === fence[0] && marker.length >= fence.length && line.trim() === marker) fence = null;
    } else {
      prose.push(line);
    }
  }
  flush();
  return out.join("\n");
}

interface MdNode {
  type: string;
  value?: string;
  children?: MdNode[];
  position?: { start: { offset?: number }; end: { offset?: number } };
}

/**
 * "$5 and $10" parses as the formula "5 and " once single dollars are math: like Pandoc, a
 * single-dollar formula that starts or ends with a space, or whose closing `$` is followed by a
 * digit, is put back as the text it was.
 */
export function remarkDollarAmounts() {
  return (tree: MdNode, file: { value: unknown }) => {
    const source = String(file.value);
    const visit = (node: MdNode) => {
      if (!node.children) return;
      node.children = node.children.map((child) => {
        visit(child);
        if (child.type !== "inlineMath") return child;
        const start = child.position?.start.offset;
        const end = child.position?.end.offset;
        if (start === undefined || end === undefined) return child;
        const raw = source.slice(start, end);
        if (raw.startsWith("$$") || !raw.startsWith("$")) return child;
        const body = raw.slice(1, -1);
        const amount = /^\s|\s$/.test(body) || /^\d/.test(source.slice(end));
        return amount ? { type: "text", value: raw } : child;
      });
    };
    visit(tree);
  };
}
