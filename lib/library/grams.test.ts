import { describe, expect, it } from "vitest";
import { CHARACTERS_MARK, gramsOf, termLookup, tokensMatch } from "./grams";

const tokens = (text: string) => gramsOf(text).split(" ").filter(Boolean).sort();
/** The passage's sequence: its tokens before the mark. */
const sequence = (text: string) => gramsOf(text).split(` ${CHARACTERS_MARK} `)[0]?.split(" ") ?? [];

/** Whether `wanted` stands in `tokens` side by side, in order. */
const sideBySide = (wanted: string[], tokens: string[]) =>
  tokens.some((_, at) => wanted.every((token, offset) => tokens[at + offset] === token));

describe("the library index's tokens", () => {
  it("holds a Japanese run's adjacent pairs in order, then after the mark each of its characters", () => {
    expect(gramsOf("東京都 は 雨")).toBe(`東京 京都 は 雨 ${CHARACTERS_MARK} 東 京 都`);
    expect(gramsOf("東京都の天気")).toBe(`東京 京都 都の の天 天気 ${CHARACTERS_MARK} 東 京 都 の 天 気`);
  });

  it("does not pair characters across punctuation or another script", () => {
    const all = tokens("東京、大阪 in 2026年");
    expect(all).toEqual(expect.arrayContaining(["東京", "大阪", "in", "2026", "年"]));
    expect(all).not.toContain("京大");
    expect(all).not.toContain("6年");
  });

  it("holds each word of other scripts whole, split where punctuation is, with no mark when there is no run", () => {
    expect(gramsOf("PostgreSQL 16, node.js".toLowerCase())).toBe("postgresql 16 node js");
  });

  it("keeps a token as often as the text has it", () => {
    expect(tokens("ab ab 東東")).toEqual(["ab", "ab", "東", "東", "東東", CHARACTERS_MARK].sort());
  });

  it("keeps a character outside the Basic Multilingual Plane whole", () => {
    expect(tokens("𠮷野家")).toContain("𠮷野");
  });

  it("never makes the mark a query token: a query is letters, digits and marks", () => {
    expect(termLookup(`a${CHARACTERS_MARK}b`, false).tokens).not.toContain(CHARACTERS_MARK);
  });
});

describe("looking a term up", () => {
  it("finds a word as the whole word, and word* as a word it starts", () => {
    expect(termLookup("harbour", false)).toEqual({ tokens: ["harbour"], anywhere: [], prefix: false, literal: false });
    expect(termLookup("internation", true)).toEqual({
      tokens: ["internation"],
      anywhere: [],
      prefix: true,
      literal: false,
    });
  });

  it("finds a CJK term by its pairs, and one character as itself", () => {
    expect(termLookup("東京", false).tokens).toEqual(["東京"]);
    expect(termLookup("天気予報", false).tokens).toEqual(["天気", "気予", "予報"]);
    expect(termLookup("雨", true)).toEqual({ tokens: ["雨"], anywhere: [], prefix: false, literal: false });
    expect(tokens("大雨の日")).toContain("雨");
  });

  it("finds every term of a text as tokens its sequence holds side by side", () => {
    const text = "今日の天気は晴れです。新しいgpt4東京モデル、a 東 b";
    const textTokens = sequence(text);
    const chars = [...text];
    const wordChar = /[a-z0-9]/;
    for (let start = 0; start < chars.length; start++) {
      for (let end = start + 2; end <= chars.length; end++) {
        const term = chars.slice(start, end).join("").trim();
        // What a query holds: no punctuation, words whole.
        if (/[。、]/.test(term) || term !== chars.slice(start, end).join("")) continue;
        if (wordChar.test(chars[start] ?? "") && wordChar.test(chars[start - 1] ?? "")) continue;
        if (wordChar.test(chars[end - 1] ?? "") && wordChar.test(chars[end] ?? "")) continue;
        const lookup = termLookup(term, false);
        expect(sideBySide(lookup.tokens, textTokens), term).toBe(true);
        for (const token of lookup.anywhere) expect(tokens(text), term).toContain(token);
      }
    }
    for (const absent of ["天気晴れ", "晴れ天気", "gpt東京", "pt4東京", "今日天気", "a b"]) {
      expect(sideBySide(termLookup(absent, false).tokens, textTokens), absent).toBe(false);
    }
  });

  it("looks a character alone at a term's edge up anywhere, and asks for the text as written", () => {
    // In 東京2 the 京 is in the pair 東京, not a token of its own in the sequence.
    expect(termLookup("京2", false)).toEqual({ tokens: ["2"], anywhere: ["京"], prefix: false, literal: true });
    expect(termLookup("a東b", false)).toEqual({
      tokens: ["a", "東", "b"],
      anywhere: [],
      prefix: false,
      literal: false,
    });
  });

  it("finds a phrase as its words side by side, in order", () => {
    expect(termLookup("red fox", false).tokens).toEqual(["red", "fox"]);
    const tokens = sequence("the red fox, the red, fox");
    expect(sideBySide(termLookup("red fox", false).tokens, tokens)).toBe(true);
    expect(sideBySide(termLookup("fox red", false).tokens, tokens)).toBe(false);
  });

  it("never lets a phrase run from the sequence into the characters after the mark", () => {
    // The sequence ends "gpt4"; the characters start 東: "gpt4 東" is not in the text.
    const grams = gramsOf("東京は gpt4").split(" ");
    expect(sideBySide(["gpt4", "東"], grams)).toBe(false);
  });

  it("asks a term with punctuation in it to stand in the text as written", () => {
    expect(termLookup("100%", false)).toEqual({ tokens: ["100"], anywhere: [], prefix: false, literal: true });
    expect(termLookup("node.js 20", false).literal).toBe(true);
    expect(termLookup("「東京」", false).literal).toBe(true);
    expect(termLookup("red fox", false).literal).toBe(false);
  });

  it("quotes every token of the MATCH text, a sequence a phrase, a prefix's last one starred", () => {
    expect(
      tokensMatch([
        { text: "harbour fees", prefix: false },
        { text: "intern", prefix: true },
        { text: "天気予報", prefix: false },
        { text: "京2", prefix: false },
      ]),
    ).toBe('"harbour" + "fees" AND "intern"* AND "天気" + "気予" + "予報" AND "2" AND "京"');
  });
});
