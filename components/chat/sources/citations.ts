/**
 * `[n]` in an answer cites the run's source n: a remark plugin turns it into a link to that
 * source, which the answer's link component draws as a citation (a link whose text is `[n]`). Code is another node type, so
 * it is never touched; `[n]` already inside a link, and numbers no source has, stay text.
 */

export interface CitationTarget {
  n: number;
  href: string;
  title: string;
}

interface MdNode {
  type: string;
  value?: string;
  url?: string;
  title?: string;
  children?: MdNode[];
}

const CITATION = /\[(\d{1,4})\]/g;

function split(text: string, targets: ReadonlyMap<number, CitationTarget>): MdNode[] | null {
  const nodes: MdNode[] = [];
  let last = 0;
  for (const match of text.matchAll(CITATION)) {
    const n = Number(match[1]);
    const target = targets.get(n);
    if (!target) continue;
    if (match.index > last) nodes.push({ type: "text", value: text.slice(last, match.index) });
    nodes.push({
      type: "link",
      url: target.href,
      title: `${n}. ${target.title}`,
      children: [{ type: "text", value: match[0] }],
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
      if (child.type === "text" && child.value) return split(child.value, targets) ?? [child];
      visit(child);
      return [child];
    });
  };
  return (tree: MdNode) => visit(tree);
}
