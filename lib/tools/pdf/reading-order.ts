import type { Line, LineBox } from "./page-lines";

/**
 * Puts a page's lines in reading order. Content-stream order is kept unless the stream jumps back
 * up within a column (Chrome paints positioned boxes — code listings, tables — after all the prose of
 * the page): then the page's blocks are ordered by position, top to bottom within a column and
 * columns left to right. Columns of vertical writing read right to left.
 */

/** Beyond this many blocks a page keeps content-stream order (ordering costs the cube of the count). */
const MAX_BLOCKS = 200;

interface Block {
  lines: Line[];
  /** Over the block's placed lines; undefined while it has none. */
  box?: LineBox;
}

function extend(box: LineBox | undefined, line: LineBox): LineBox {
  if (!box) return { ...line };
  return {
    x0: Math.min(box.x0, line.x0),
    x1: Math.max(box.x1, line.x1),
    top: Math.max(box.top, line.top),
    bottom: Math.min(box.bottom, line.bottom),
    size: Math.max(box.size, line.size),
  };
}

/** Shared width of two boxes, less a small tolerance, so columns that only touch do not overlap. */
function overlapsX(a: LineBox, b: LineBox): boolean {
  return Math.min(a.x1, b.x1) - Math.max(a.x0, b.x0) > 0.5 * Math.min(a.size, b.size);
}

/** Vertical extent of a box, glyphs included: from its lowest baseline to a font size above its top one. */
function overlapsY(a: LineBox, b: LineBox): boolean {
  return Math.min(a.top + a.size, b.top + b.size) > Math.max(a.bottom, b.bottom);
}

/** Consecutive lines in stream order that run downwards within one column. */
function blocksOf(lines: Line[]): Block[] {
  const blocks: Block[] = [];
  let current: Block | undefined;
  for (const line of lines) {
    const box = line.box;
    const last = current?.lines.findLast((candidate) => candidate.box)?.box;
    const startsBlock =
      !current || (box && last && (box.top > last.bottom + 0.5 * box.size || !overlapsX(box, current.box!)));
    if (startsBlock) {
      current = { lines: [] };
      blocks.push(current);
    }
    current!.lines.push(line);
    if (box) current!.box = extend(current!.box, box);
  }
  return blocks;
}

/** True when a later block starts above the end of an earlier one in the same column. */
function jumpsBackUp(blocks: Block[]): boolean {
  return blocks.some((later, j) =>
    blocks.slice(0, j).some(({ box }) => box && later.box && overlapsX(box, later.box) && later.box.top > box.bottom),
  );
}

/** Cuts each block where another block of its column sits between two of its lines. */
function splitAround(blocks: Block[]): Block[] {
  return blocks.flatMap((block) => {
    const inside = blocks
      .filter((other) => other !== block && other.box && block.box && overlapsX(other.box, block.box))
      .map((other) => other.box!.top);
    if (inside.length === 0) return [block];
    const parts: Block[] = [];
    let part: Block = { lines: [] };
    let previousBaseline: number | undefined;
    for (const line of block.lines) {
      const baseline = line.box?.top;
      if (
        baseline !== undefined &&
        previousBaseline !== undefined &&
        inside.some((top) => top < previousBaseline! && top > baseline)
      ) {
        parts.push(part);
        part = { lines: [] };
      }
      part.lines.push(line);
      if (line.box) part.box = extend(part.box, line.box);
      if (baseline !== undefined) previousBaseline = line.box!.bottom;
    }
    parts.push(part);
    return parts;
  });
}

/** `a` reads before `b`: above it in the same column, or left of it side by side. */
function precedes(a: Block, b: Block): boolean {
  if (!a.box || !b.box) return false;
  if (overlapsX(a.box, b.box)) return a.box.top > b.box.top;
  return overlapsY(a.box, b.box) && a.box.x0 < b.box.x0;
}

/** Blocks in an order that respects `precedes`, otherwise stream order (also when a cycle leaves no choice). */
function byPosition(blocks: Block[]): Block[] {
  const left = [...blocks];
  const ordered: Block[] = [];
  while (left.length > 0) {
    const next = left.findIndex((block) => !left.some((other) => other !== block && precedes(other, block)));
    ordered.push(...left.splice(Math.max(next, 0), 1));
  }
  return ordered;
}

/** Runs of vertical columns that start at the same height, each read right to left. */
function columnsRightToLeft(lines: Line[]): Line[] {
  const result: Line[] = [];
  let run: Line[] = [];
  const flush = () => {
    result.push(...run.sort((a, b) => b.box!.x0 - a.box!.x0));
    run = [];
  };
  for (const line of lines) {
    const box = line.box;
    const head = run[0]?.box;
    if (!line.vertical || !box) {
      flush();
      result.push(line);
      continue;
    }
    if (head && Math.abs(head.top - box.top) > head.size) flush();
    run.push(line);
  }
  flush();
  return result;
}

export function readingOrder(lines: Line[]): Line[] {
  if (lines.some((line) => line.vertical)) return columnsRightToLeft(lines);
  const blocks = blocksOf(lines);
  if (blocks.length < 2 || blocks.length > MAX_BLOCKS || !jumpsBackUp(blocks)) return lines;
  return byPosition(splitAround(blocks)).flatMap((block) => block.lines);
}
