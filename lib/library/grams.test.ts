import { describe, expect, it } from "vitest";
import { gramsOf, termLookup, tokensMatch } from "./grams";

const tokens = (text: string) => gramsOf(text).split(" ").filter(Boolean).sort();

describe("the library index's tokens", () => {
  it("holds every character and every adjacent pair of a Japanese run", () => {
    expect(tokens("東京都")).toEqual(["京", "京都", "東", "東京", "都"].sort());
  });

  it("does not pair characters across punctuation or another script", () => {
    const all = tokens("東京、大阪 in 2026年");
    expect(all).toEqual(expect.arrayContaining(["東京", "大阪", "in", "2026", "年"]));
    expect(all).not.toContain("京大");
    expect(all).not.toContain("6年");
  });

  it("holds each word of other scripts whole, split where punctuation is", () => {
    expect(tokens("PostgreSQL 16, node.js".toLowerCase())).toEqual(["16", "js", "node", "postgresql"]);
  });

  it("keeps a token as often as the text has it", () => {
    expect(tokens("ab ab 東東")).toEqual(["ab", "ab", "東", "東", "東東"].sort());
  });

  it("keeps a character outside the Basic Multilingual Plane whole", () => {
    expect(tokens("𠮷野家")).toContain("𠮷野");
  });
});

describe("looking a term up", () => {
  it("finds a word as the whole word, and word* as a word it starts", () => {
    expect(termLookup("harbour", false)).toEqual({ tokens: ["harbour"], prefix: false, verify: false });
    expect(termLookup("internation", true)).toEqual({ tokens: ["internation"], prefix: true, verify: false });
  });

  it("finds a CJK term of one or two characters as itself", () => {
    expect(termLookup("東京", false)).toEqual({ tokens: ["東京"], prefix: false, verify: false });
    expect(termLookup("雨", true)).toEqual({ tokens: ["雨"], prefix: false, verify: false });
  });

  it("finds a longer CJK term by its pairs, then checks the text", () => {
    expect(termLookup("天気予報", false)).toEqual({ tokens: ["天気", "気予", "予報"], prefix: false, verify: true });
    for (const token of termLookup("天気は晴れ", false).tokens) {
      expect(gramsOf("今日の天気は晴れです").split(" ")).toContain(token);
    }
  });

  it("finds a phrase or a word mixing scripts by its tokens, then checks the text", () => {
    expect(termLookup("red fox", false)).toEqual({ tokens: ["red", "fox"], prefix: false, verify: true });
    expect(termLookup("gpt4東京", false).verify).toBe(true);
  });

  it("quotes every token of the MATCH text, a prefix's last one starred", () => {
    expect(
      tokensMatch([
        { text: "harbour fees", prefix: false },
        { text: "intern", prefix: true },
      ]),
    ).toBe('"harbour" AND "fees" AND "intern"*');
  });
});
