import { describe, expect, it } from "vitest";
import { likePattern, parseQuery } from "./query";

/** Reading a library query (docs/architecture.md, "The library index"). */

describe("reading a library query", () => {
  it("reads words, quoted phrases and prefix words", () => {
    expect(parseQuery('Harbour "Opening  Hours" intern*')).toEqual([
      { text: "harbour", phrase: false, prefix: false },
      { text: "opening hours", phrase: true, prefix: false },
      { text: "intern", phrase: false, prefix: true },
    ]);
  });

  it("folds full-width forms and case (NFKC, lowercase)", () => {
    expect(parseQuery("ＰｏｓｔｇｒｅＳＱＬ １６").map((term) => term.text)).toEqual(["postgresql", "16"]);
  });

  it("reads FTS5 operators and column filters as plain words", () => {
    expect(parseQuery("NEAR(a b) text:secret ^x a OR b").map((term) => term.text)).toEqual([
      "near",
      "a",
      "b",
      "text",
      "secret",
      "x",
      "a",
      "or",
      "b",
    ]);
  });

  it("escapes LIKE's wildcards", () => {
    expect(likePattern({ text: "100%_a\\", phrase: false, prefix: false })).toBe("%100\\%\\_a\\\\%");
  });

  it("has nothing to search for in punctuation alone, and keeps a query to a bounded size", () => {
    expect(parseQuery("!!! ??? ---")).toEqual([]);
    expect(parseQuery("word ".repeat(1000)).length).toBeLessThanOrEqual(16);
  });
});
