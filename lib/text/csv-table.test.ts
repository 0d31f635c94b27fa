import { describe, expect, it } from "vitest";
import { csvToMarkdown, guessDelimiter, parseCsv } from "./csv-table";

describe("CSV as a Markdown table", () => {
  it("writes the header row, a rule, and one line per row", () => {
    expect(csvToMarkdown("city,sales\n東京,120\r\n大阪,95\n")).toEqual({
      head: "| city | sales |\n| --- | --- |\n",
      body: "| 東京 | 120 |\n| 大阪 | 95 |\n",
    });
  });

  it("keeps quoted delimiters, doubled quotes and line breaks inside a cell, and escapes pipes", () => {
    expect(parseCsv('a,"b, c","say ""hi""","two\nlines"\n', ",")).toEqual([["a", "b, c", 'say "hi"', "two\nlines"]]);
    expect(csvToMarkdown('h\n"x|y"\n"two\nlines"').body).toBe("| x\\|y |\n| two lines |\n");
  });

  it("takes the most frequent of comma, semicolon and tab in the first line as the delimiter", () => {
    expect(guessDelimiter("a;b;c\n1,5;2;3")).toBe(";");
    expect(guessDelimiter("a\tb\n")).toBe("\t");
    expect(guessDelimiter('"x;y;z",b\n')).toBe(",");
    expect(csvToMarkdown("名前;値\nA;1").body).toBe("| A | 1 |\n");
  });

  it("drops blank lines and never pads rows, so one very wide row costs only its own length", () => {
    const wide = Array.from({ length: 100_000 }, (_, i) => `c${i}`).join(",");
    const table = csvToMarkdown(`a,b\n\n${wide}\n1\n`);
    expect(table.body.split("\n")).toHaveLength(3);
    expect(table.body.endsWith("| 1 |\n")).toBe(true);
    expect(table.head).toBe("| a | b |\n| --- | --- |\n");
  });

  it("parses in linear time: a 4 MB single-line CSV and a file of quotes", () => {
    const line = "x,".repeat(2 * 1024 * 1024);
    expect(parseCsv(line, ",")[0]).toHaveLength(2 * 1024 * 1024 + 1);
    expect(parseCsv('"'.repeat(1_000_001), ",")).toHaveLength(1);
  });
});
