/**
 * `[n]` in an answer cites the run's source n: a remark plugin turns it into a link to that
 * source, which the answer's link component draws as a citation (a link whose text is `[n]`). Code is another node type, so
 * it is never touched; `[n]` already inside a link, and numbers no source has, stay text. Each link keeps
 * the marker's place in the text, which matches it to its sentence's citation check.
 */

export interface CitationTarget {
  n: number;
  href: string;
  title: string;
}

interface Point {
  line: number;
  column: number;
  offset?: number;
}

interface MdNode {
  type: string;
  value?: string;
  url?: string;
  title?: string;
  children?: MdNode[];
  position?: { start: Point; end: Point };
}

const CITATION = /\[(\d{1,4})\]/g;

/**
 * Where the marker at `index` of a text node lies in the answer: the link keeps it, so the chip can
 * find its sentence's check (citation-checks.ts). Absent when the text node has no position.
 */
function markerPosition(node: MdNode, index: number, length: number): MdNode["position"] {
  const start = node.position?.start;
  if (start?.offset === undefined) return undefined;
  const before = (node.value ?? "").slice(0, index);
  const newlines = before.split("\n").length - 1;
  const column = newlines === 0 ? start.column + index : index - before.lastIndexOf("\n");
  const at = { line: start.line + newlines, column, offset: start.offset + index };
  return { start: at, end: { line: at.line, column: at.column + length, offset: at.offset + length } };
}

function split(node: MdNode, targets: ReadonlyMap<number, CitationTarget>): MdNode[] | null {
  const text = node.value ?? "";
  const nodes: MdNode[] = [];
  let last = 0;
  for (const match of text.matchAll(CITATION)) {
    const n = Number(match[1]);
    const target = targets.get(n);
    if (!target) continue;
    if (match.index > last) nodes.push({ type: "text", value: text.slice(last, match.index) });
    const position = markerPosition(node, match.index, match[0].length);
    nodes.push({
      type: "link",
      url: target.href,
      title: `${n}. ${target.title}`,
      children: [{ type: "text", value: match[0] }],
      ...(position ? { position } : {}),
    });
    last = match.index + match[0].length;
  }
  if (nodes.length === 0) return null;
  if (last < text.length) nodes.push({ type: "text", value: text.slice(last) });
  return nodes;
}

/** The source number of a link whose whole text is `[n]`, else null. */
export function citationNumber(children: unknown): string | null {
  return typeof children === "string" ? (/^\[(\d{1,4})\]$/.exec(children)?.[1] ?? null) : null;
}

/**
 * The targets come as the plugin's options, not a closure: Streamdown caches its processors by
 * plugin name and options, so each answer's own sources must be part of that key.
 */
export function remarkCitations({ targets: list }: { targets: CitationTarget[] }) {
  const targets = new Map(list.map((target) => [target.n, target]));
  const visit = (node: MdNode) => {
    if (!node.children || node.type === "link" || node.type === "linkReference") return;
    node.children = node.children.flatMap((child) => {
      if (child.type === "text" && child.value) return split(child, targets) ?? [child];
      visit(child);
      return [child];
    });
  };
  return (tree: MdNode) => visit(tree);
}
