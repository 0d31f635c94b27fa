import { describe, expect, it } from "vitest";
import { cjkGramsOf, gramFor, gramsOf } from "./grams";

const tokens = (text: string) => gramsOf(text).split(" ").filter(Boolean).sort();

describe("the short-term index's tokens", () => {
  it("holds every character and every adjacent pair of a Japanese run", () => {
    expect(tokens("東京都")).toEqual(["京", "京都", "東", "東京", "都"].sort());
  });

  it("does not pair characters across punctuation or another script", () => {
    const all = tokens("東京、大阪 in 2026年");
    expect(all).toContain("東京");
    expect(all).toContain("大阪");
    expect(all).not.toContain("京大");
    expect(all).not.toContain("6年");
  });

  it("holds the first one and two characters of each other word, not its middle", () => {
    const all = tokens("postgresql 16 c");
    expect(all).toEqual(["1", "16", "c", "p", "po"].sort());
    expect(all).not.toContain("gr");
  });

  it("writes each token once", () => {
    expect(gramsOf("ab ab 東東").split(" ")).toHaveLength(4);
    expect(tokens("ab ab 東東")).toEqual(["a", "ab", "東", "東東"].sort());
  });

  it("keeps a character outside the Basic Multilingual Plane whole", () => {
    expect(tokens("𠮷野家")).toContain("𠮷野");
  });

  it("requires of a longer term only the tokens its CJK runs give wherever it occurs", () => {
    expect(cjkGramsOf("東京都").sort()).toEqual(["京都", "東京"].sort());
    expect(cjkGramsOf("orta")).toEqual([]);
    expect(cjkGramsOf("gpt 東 test").sort()).toEqual(["東"]);
    for (const token of cjkGramsOf("天気は晴れ")) expect(gramsOf("今日の天気は晴れです").split(" ")).toContain(token);
  });

  it("looks a short term up by itself, unless it mixes CJK and another script", () => {
    expect(gramFor("東京")).toBe("東京");
    expect(gramFor("東")).toBe("東");
    expect(gramFor("16")).toBe("16");
    expect(gramFor("a東")).toBeNull();
    expect(gramFor("abc")).toBeNull();
  });
});
