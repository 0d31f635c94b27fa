import type { TextContent, TextItem } from "pdfjs-dist/types/src/display/api";
import { describe, expect, it } from "vitest";
import { joinTextContent, normalisePageText } from "./page-text";

function item(str: string, x: number, y: number, options: Partial<TextItem> = {}): TextItem {
  return {
    str,
    dir: "ltr",
    transform: [10, 0, 0, 10, x, y],
    width: str.length * 5,
    height: 10,
    fontName: "f",
    hasEOL: false,
    ...options,
  };
}

function content(items: TextItem[], vertical = false): TextContent {
  return { items, styles: { f: { ascent: 0.8, descent: -0.2, vertical, fontFamily: "sans-serif" } }, lang: null };
}

describe("page text normalisation", () => {
  it("ends a line where pdf.js marks hasEOL", () => {
    expect(joinTextContent(content([item("one", 0, 100, { hasEOL: true }), item("two", 0, 100)]))).toBe("one\ntwo");
  });

  it("starts a new line when the baseline moves by more than half the font size", () => {
    const items = [item("first", 0, 100), item(" tail", 30, 100), item("second", 0, 88), item("sup", 40, 91)];
    expect(joinTextContent(content(items))).toBe("first tail\nsecondsup");
  });

  it("joins adjacent items on one baseline without inventing spaces (CJK text)", () => {
    expect(joinTextContent(content([item("日本", 0, 100), item("語", 20, 100)]))).toBe("日本語");
  });

  it("does not split vertical writing at every baseline change", () => {
    const items = [
      item("縦", 100, 700),
      item("書", 100, 690),
      item("き", 100, 680, { hasEOL: true }),
      item("次", 80, 700),
    ];
    expect(joinTextContent(content(items, true))).toBe("縦書き\n次");
  });

  it("ignores marked-content boundaries and an empty item's position", () => {
    const marked = { type: "beginMarkedContent", id: "m1" };
    const items = [item("a", 0, 100), marked, item("", 0, 0), item("b", 5, 100)] as TextItem[];
    expect(joinTextContent(content(items))).toBe("ab");
  });

  it("collapses runs of spaces, trims lines, keeps at most one blank line and trims the page", () => {
    expect(normalisePageText("\n\n  a \t  b  \r\n\n\n\n\u00a0c\u0000d \n\n")).toBe("a b\n\ncd");
  });

  it("gives an empty string for a page of whitespace", () => {
    expect(normalisePageText(" \n \t\n\n")).toBe("");
  });
});

describe("page text layout", () => {
  it("joins upright CJK glyphs stacked at one x into a column, with a space for a skipped glyph", () => {
    const items = [item("縦", 100, 700), item("書", 100, 688), item("き", 100, 676), item("次", 100, 652)];
    expect(joinTextContent(content(items))).toBe("縦書き 次");
  });

  it("reads columns of vertical writing right to left whatever order the stream gives them", () => {
    const items = [item("左", 50, 700), item("列", 50, 688), item("右", 80, 700), item("列", 80, 688)];
    expect(joinTextContent(content(items))).toBe("右列\n左列");
  });

  it("keeps a column of single Latin letters or digits as separate lines (a table column is not vertical writing)", () => {
    const items = [item("1", 100, 700), item("2", 100, 688), item("3", 100, 676)];
    expect(joinTextContent(content(items))).toBe("1\n2\n3");
  });

  it("reads a right-to-left line's items right to left, edge punctuation of a number with the line", () => {
    const items = [item(".2024", 10, 100), item(" ", 40, 100), item("כמו", 45, 100, { dir: "rtl" })];
    expect(joinTextContent(content(items))).toBe("כמו 2024.");
  });

  it("keeps stream order for two columns and for a page whose stream only runs downwards", () => {
    const left = [item("left one", 0, 700), item("left two", 0, 688)];
    const right = [item("right one", 300, 700), item("right two", 300, 688)];
    expect(joinTextContent(content([...left, ...right]))).toBe("left one\nleft two\nright one\nright two");
  });

  it("moves a block drawn after the prose to its place when the stream jumps back up within the column", () => {
    const prose = [item("intro", 0, 700), item("after the box", 0, 600)];
    const box = [item("box line one", 10, 670), item("box line two", 10, 658)];
    expect(joinTextContent(content([...prose, ...box]))).toBe("intro\nbox line one\nbox line two\nafter the box");
  });

  describe("monospaced lines keep their indentation (code, preformatted text)", () => {
    /** A fixed-pitch font "m" (5 units a character at size 10) beside the proportional "f". */
    const mono = (items: TextItem[]): TextContent => ({
      ...content(items),
      styles: {
        f: { ascent: 0.8, descent: -0.2, vertical: false, fontFamily: "sans-serif" },
        m: { ascent: 0.8, descent: -0.2, vertical: false, fontFamily: "monospace" },
      },
    });
    const code = (str: string, x: number, y: number, options: Partial<TextItem> = {}) =>
      item(str, x, y, { fontName: "m", ...options });

    it("indents a line by its distance from the block's left edge, in characters", () => {
      const items = [
        item("Prose before.", 0, 700),
        code("def f(x):", 20, 688),
        code("if x:", 40, 676),
        code("return 1", 60, 664),
        code("return 0", 40, 652),
        item("Prose after.", 0, 640),
      ];
      expect(joinTextContent(mono(items))).toBe(
        "Prose before.\ndef f(x):\n    if x:\n        return 1\n    return 0\nProse after.",
      );
    });

    it("counts the spaces a line starts with (Chrome writes them) instead of trimming them", () => {
      const items = [code("{", 0, 700), code("  body", 0, 688), code("}", 0, 676)];
      expect(joinTextContent(mono(items))).toBe("{\n  body\n}");
    });

    it("keeps a blank line inside a block without ending it, marked or left as a gap of two lines", () => {
      const marked = [code("a", 0, 700, { hasEOL: true }), item("", 0, 700, { hasEOL: true }), code("b", 10, 676)];
      expect(joinTextContent(mono(marked))).toBe("a\n\n  b");
      const gap = [code("a", 0, 700), code("b", 10, 676), code("c", 10, 664)];
      expect(joinTextContent(mono(gap))).toBe("a\n\n  b\n  c");
    });

    it("measures each block from its own left edge: a listing in the right column is not pushed right", () => {
      const items = [
        code("left()", 0, 700),
        code("nested()", 10, 688),
        code("right()", 300, 700),
        code("more()", 310, 688),
      ];
      expect(joinTextContent(mono(items))).toBe("left()\n  nested()\nright()\n  more()");
    });

    it("leaves proportional text unindented however far right it starts", () => {
      expect(joinTextContent(content([item("first", 0, 700), item("indented", 40, 688)]))).toBe("first\nindented");
    });
  });
});
