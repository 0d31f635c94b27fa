import type { PageTextItem } from "./page-text";

/**
 * A page's text items, packed: item i's text is the next `lengths[i]` characters of `text`; its
 * transform is `numbers[8i .. 8i+5]`, width and height `numbers[8i+6]` and `[8i+7]`; its font name
 * is `fonts[fontIndex[i]]`, its direction `dirs[dirIndex[i]]`, and `eol[i]` is 1 for `hasEOL`.
 */
export interface PackedPage {
  type: "page";
  text: string;
  lengths: Uint32Array;
  numbers: Float64Array;
  fontIndex: Uint32Array;
  fonts: string[];
  dirIndex: Uint8Array;
  dirs: string[];
  eol: Uint8Array;
  styles: Record<string, { vertical: boolean; fontFamily?: string }>;
}

export function unpackItems(page: PackedPage): PageTextItem[] {
  const { text, lengths, numbers: n, fonts, fontIndex, dirs, dirIndex, eol } = page;
  const items: PageTextItem[] = new Array(lengths.length);
  let offset = 0;
  for (let i = 0; i < items.length; i++) {
    const length = lengths[i]!;
    const at = i * 8;
    items[i] = {
      str: text.slice(offset, offset + length),
      transform: [n[at]!, n[at + 1]!, n[at + 2]!, n[at + 3]!, n[at + 4]!, n[at + 5]!],
      width: n[at + 6]!,
      height: n[at + 7]!,
      fontName: fonts[fontIndex[i]!]!,
      dir: dirs[dirIndex[i]!]!,
      hasEOL: eol[i] === 1,
    };
    offset += length;
  }
  return items;
}
