import "server-only";
import {
  AlignmentType,
  BorderStyle,
  Document,
  ExternalHyperlink,
  HeadingLevel,
  LevelFormat,
  Packer,
  Paragraph,
  type ParagraphChild,
  ShadingType,
  Table,
  TableCell,
  TableRow,
  TextRun,
  WidthType,
} from "docx";
import type { BlockContent, List, Table as MdTable, PhrasingContent, RootContent } from "mdast";
import { fromMarkdown } from "mdast-util-from-markdown";
import { gfmFromMarkdown } from "mdast-util-gfm";
import { gfm } from "micromark-extension-gfm";
import type { AnswerDocument } from "./answer-document";
import { accessedDate, attachmentId, verdictNote } from "./references";

/**
 * One answer as a Word document (docs/research.md, "Exports"): the answer's Markdown parsed as the
 * chat renders it (CommonMark and GFM, mdast), its headings, paragraphs, lists, tables, quotes and
 * code written as Word's own, each `[n]` marker kept as a superscript, the references at the end.
 */
export async function answerDocx(document: AnswerDocument): Promise<Buffer> {
  const tree = fromMarkdown(document.content, { extensions: [gfm()], mdastExtensions: [gfmFromMarkdown()] });
  const writer = new BlockWriter();
  const about = [document.model ? `Model: ${document.model}` : null, `answered ${isoTime(document.answeredAt)}`]
    .concat(document.citations)
    .filter((part) => part !== null);
  const children: (Paragraph | Table)[] = [
    new Paragraph({ heading: HeadingLevel.TITLE, children: [new TextRun(oneLine(document.title))] }),
    ...(document.question
      ? [
          quoted(
            document.question
              .split("\n")
              .map((line, index) => new TextRun({ text: line, italics: true, ...(index > 0 ? { break: 1 } : {}) })),
          ),
        ]
      : []),
    new Paragraph({ children: [new TextRun({ text: about.join(" · "), color: "666666", size: 18 })] }),
    ...tree.children.flatMap((node) => writer.block(node)),
  ];
  if (document.references.length) {
    children.push(new Paragraph({ heading: HeadingLevel.HEADING_1, children: [new TextRun("References")] }));
    for (const reference of document.references) {
      const fileId = attachmentId(reference.url);
      const title = oneLine(reference.title || reference.url);
      const name = fileId === null ? null : document.fileName(fileId);
      const checked = verdictNote(reference.verdicts);
      children.push(
        new Paragraph({
          children: [
            new TextRun(`[${reference.n}] `),
            fileId === null && /^https?:\/\//i.test(reference.url)
              ? new ExternalHyperlink({
                  link: reference.url,
                  children: [new TextRun({ text: title, style: "Hyperlink" })],
                })
              : new TextRun(fileId === null ? title : `${title} (attached file${name ? ` ${name}` : ""})`),
            new TextRun(`, accessed ${accessedDate(reference.retrievedAt)}`),
            ...(checked ? [new TextRun({ text: ` — citations: ${checked}`, color: "666666" })] : []),
          ],
        }),
      );
    }
  }
  const file = new Document({
    creator: "ollama-web",
    title: oneLine(document.title),
    numbering: { config: writer.numbering() },
    // Kana and kanji in a font that has them, whatever the reader's Word defaults to.
    styles: { default: { document: { run: { font: { eastAsia: EAST_ASIAN_FONT } } } } },
    sections: [{ children }],
  });
  return Packer.toBuffer(file);
}

const ORDERED = "ordered-list";
const BULLET = "bullet-list";
/** Word's list levels: nine, 0 to 8; a deeper Markdown list stays at the last. */
const LEVELS = 9;
const CODE_FONT = "Consolas";
const EAST_ASIAN_FONT = "Yu Gothic";

interface Marks {
  bold?: boolean;
  italics?: boolean;
  strike?: boolean;
  code?: boolean;
}

/** Writes mdast blocks as Word paragraphs and tables; numbers each ordered list from its own start. */
class BlockWriter {
  private orderedLists = 0;

  /** The ordered lists' starts: one numbering per start (Word numbers an instance from its level's start). */
  private starts = new Set<number>([1]);

  numbering() {
    const levels = (start: number | null) =>
      Array.from({ length: LEVELS }, (_, level) => ({
        level,
        format: start === null ? LevelFormat.BULLET : LevelFormat.DECIMAL,
        text: start === null ? (["•", "◦", "▪"][level % 3] ?? "•") : `%${level + 1}.`,
        ...(start !== null && level === 0 ? { start } : {}),
        alignment: AlignmentType.LEFT,
        style: { paragraph: { indent: { left: 720 * (level + 1), hanging: 360 } } },
      }));
    return [
      ...[...this.starts].map((start) => ({ reference: `${ORDERED}-${start}`, levels: levels(start) })),
      { reference: BULLET, levels: levels(null) },
    ];
  }

  block(node: RootContent, depth = 0): (Paragraph | Table)[] {
    switch (node.type) {
      case "heading":
        return [new Paragraph({ heading: HEADINGS[node.depth - 1], children: inline(node.children) })];
      case "paragraph":
        return [new Paragraph({ children: inline(node.children) })];
      case "list":
        return this.list(node, depth);
      case "table":
        return [table(node)];
      case "code":
        return [codeBlock(node.value)];
      case "blockquote":
        return node.children.flatMap((child) =>
          child.type === "paragraph" ? [quoted(inline(child.children))] : this.block(child, depth),
        );
      case "thematicBreak":
        return [
          new Paragraph({ border: { bottom: { style: BorderStyle.SINGLE, size: 6, color: "999999", space: 1 } } }),
        ];
      case "html":
        return [new Paragraph({ children: [new TextRun(node.value)] })];
      default:
        return "children" in node ? node.children.flatMap((child) => this.block(child as RootContent, depth)) : [];
    }
  }

  private list(node: List, depth: number): (Paragraph | Table)[] {
    const start = node.start ?? 1;
    if (node.ordered) this.starts.add(start);
    const reference = node.ordered ? `${ORDERED}-${start}` : BULLET;
    // Each ordered list its own instance: numbered from 1 again, not on from the last list.
    const instance = node.ordered ? ++this.orderedLists : 0;
    const level = Math.min(depth, LEVELS - 1);
    return node.children.flatMap((item) => {
      const [first, ...rest] = item.children;
      const marker =
        item.checked === null || item.checked === undefined ? [] : [new TextRun(item.checked ? "☑ " : "☐ ")];
      const head =
        first?.type === "paragraph"
          ? [
              new Paragraph({
                numbering: { reference, level, instance },
                children: [...marker, ...inline(first.children)],
              }),
            ]
          : [new Paragraph({ numbering: { reference, level, instance }, children: marker })];
      const tail = (first?.type === "paragraph" ? rest : item.children).flatMap((child) =>
        this.block(child as BlockContent, depth + 1),
      );
      return [...head, ...tail];
    });
  }
}

const HEADINGS = [
  HeadingLevel.HEADING_1,
  HeadingLevel.HEADING_2,
  HeadingLevel.HEADING_3,
  HeadingLevel.HEADING_4,
  HeadingLevel.HEADING_5,
  HeadingLevel.HEADING_6,
] as const;

/** A paragraph of a block quote: indented and marked by a bar on its left. */
function quoted(children: ParagraphChild[]): Paragraph {
  return new Paragraph({
    indent: { left: 567 },
    border: { left: { style: BorderStyle.SINGLE, size: 12, color: "BBBBBB", space: 8 } },
    children,
  });
}

function codeBlock(value: string): Paragraph {
  const lines = value.split("\n");
  return new Paragraph({
    shading: { type: ShadingType.CLEAR, color: "auto", fill: "F3F3F3" },
    children: lines.map(
      (line, index) => new TextRun({ text: line, font: CODE_FONT, size: 19, ...(index > 0 ? { break: 1 } : {}) }),
    ),
  });
}

function table(node: MdTable): Table {
  const columns = Math.max(1, ...node.children.map((row) => row.children.length));
  return new Table({
    width: { size: 100, type: WidthType.PERCENTAGE },
    rows: node.children.map(
      (row, rowIndex) =>
        new TableRow({
          tableHeader: rowIndex === 0,
          children: Array.from(
            { length: columns },
            (_, column) =>
              new TableCell({
                children: [
                  new Paragraph({
                    alignment: ALIGN[node.align?.[column] ?? "left"],
                    children: inline(row.children[column]?.children ?? [], rowIndex === 0 ? { bold: true } : {}),
                  }),
                ],
              }),
          ),
        }),
    ),
  });
}

const ALIGN = { left: AlignmentType.LEFT, center: AlignmentType.CENTER, right: AlignmentType.RIGHT } as const;

/** A citation marker as the answer writes it: `[1]`, `[1, 2]`. */
const MARKER = /\[\d+(?:\s*,\s*\d+)*\]/g;

/** Phrasing content as runs; `[n]` markers in text (or written as a link) become superscripts. */
function inline(nodes: readonly PhrasingContent[], marks: Marks = {}): ParagraphChild[] {
  return nodes.flatMap((node): ParagraphChild[] => {
    switch (node.type) {
      case "text":
        return textRuns(node.value, marks);
      case "strong":
        return inline(node.children, { ...marks, bold: true });
      case "emphasis":
        return inline(node.children, { ...marks, italics: true });
      case "delete":
        return inline(node.children, { ...marks, strike: true });
      case "inlineCode":
        return [run(node.value, { ...marks, code: true })];
      case "break":
        return [new TextRun({ text: "", break: 1 })];
      case "link": {
        const label = node.children.map((child) => ("value" in child ? child.value : "")).join("");
        if (/^\d+$/.test(label)) return [new TextRun({ text: `[${label}]`, superScript: true })];
        return /^https?:\/\//i.test(node.url)
          ? [new ExternalHyperlink({ link: node.url, children: inline(node.children, marks) })]
          : inline(node.children, marks);
      }
      case "image":
        return [run(`[${node.alt || "image"}]`, { ...marks, italics: true })];
      case "html":
        return [run(node.value, marks)];
      default:
        return "children" in node ? inline(node.children as PhrasingContent[], marks) : [];
    }
  });
}

function textRuns(text: string, marks: Marks): TextRun[] {
  const runs: TextRun[] = [];
  let at = 0;
  for (const match of text.matchAll(MARKER)) {
    if (match.index > at) runs.push(run(text.slice(at, match.index), marks));
    runs.push(new TextRun({ text: match[0].replace(/\s+/g, ""), superScript: true }));
    at = match.index + match[0].length;
  }
  if (at < text.length) runs.push(run(text.slice(at), marks));
  return runs;
}

function run(text: string, { bold, italics, strike, code }: Marks): TextRun {
  return new TextRun({
    text,
    ...(bold ? { bold } : {}),
    ...(italics ? { italics } : {}),
    ...(strike ? { strike } : {}),
    ...(code ? { font: CODE_FONT, shading: { type: ShadingType.CLEAR, color: "auto", fill: "F3F3F3" } } : {}),
  });
}

const isoTime = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, "Z");
const oneLine = (value: string) => value.replace(/\s+/g, " ").trim();
