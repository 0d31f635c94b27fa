import { describe, expect, it } from "vitest";
import {
  findPassage,
  PASSAGE_MAX_CHARS,
  PASSAGE_MIN_CHARS,
  type PassageSource,
  passageIndex,
  passagesOf,
} from "./passages";
import { termsOf } from "./terms";

const filler = (topic: string, n: number) =>
  Array.from({ length: n }, (_, i) => `Paragraph ${topic} ${i} talks about ${topic} and nothing else at all.`).join(
    "\n\n",
  );
const plain = (text: string): PassageSource => ({ text, parts: [] });
const termList = (text: string) => termsOf(text).map((term) => term.term);

describe('terms (docs/research.md, "Checking citations")', () => {
  it("lowercases Latin-script words, drops stop words and stems plural s, -ing and -ed", () => {
    expect(termList("The Packages were")).toEqual(termList("package"));
    expect(new Set(termList("Using used uses use"))).toEqual(new Set(termList("use")));
    expect(termList("libraries indexes running stopped")).toEqual(termList("library index run stop"));
    expect(termList("library")).not.toEqual(termList("index"));
  });

  it("reads digits as whole numbers: 1,234 is 1234, 3.50 is 3.5, a version stays whole", () => {
    expect(termList("1,234 1234 3.50 1.6.2")).toEqual(["1234", "1234", "3.5", "1.6.2"]);
  });

  it("reads Japanese and Chinese as character bigrams of each kana/kanji run", () => {
    expect(termList("羅生門の下")).toEqual(["羅生", "生門", "門の", "の下"]);
    expect(termList("門")).toEqual(["門"]);
  });

  it("reads full-width forms NFKC-normalised, keeping where the original writes them", () => {
    const text = "ＡＢＣ ５０ ｶﾀ";
    const terms = termsOf(text);
    expect(terms.map((term) => term.term)).toEqual(["abc", "50", "カタ"]);
    expect(terms.map((term) => text.slice(term.start, term.end))).toEqual(["ＡＢＣ", "５０", "ｶﾀ"]);
  });
});

describe('passagesOf (docs/research.md, "Checking citations")', () => {
  it("splits a source into overlapping passages of whole paragraphs, about 400–800 characters", () => {
    const text = filler("alpha", 60);
    const passages = passagesOf(plain(text));
    expect(passages.length).toBeGreaterThan(5);
    for (const passage of passages.slice(0, -1)) {
      expect(passage.end - passage.start).toBeGreaterThanOrEqual(PASSAGE_MIN_CHARS);
      expect(passage.end - passage.start).toBeLessThanOrEqual(PASSAGE_MAX_CHARS);
      expect(text.slice(passage.start, passage.end)).toMatch(/^Paragraph[\s\S]*else at all\.$/);
    }
    passages.slice(1).forEach((passage, i) => {
      expect(passage.start).toBeLessThan(passages[i]?.end ?? 0);
    });
    expect(passages.at(-1)?.end).toBe(text.length);
  });

  it("cuts a paragraph longer than a passage at sentence ends", () => {
    const text = Array.from({ length: 40 }, (_, i) => `Sentence ${i} of one long paragraph.`).join(" ");
    const passages = passagesOf(plain(text));
    expect(passages.length).toBeGreaterThan(1);
    for (const passage of passages) {
      expect(passage.end - passage.start).toBeLessThanOrEqual(PASSAGE_MAX_CHARS);
      expect(text.slice(passage.start, passage.end)).toMatch(/^Sentence \d+[\s\S]*paragraph\.$/);
    }
  });

  it("never lets a passage cross from one part into the next, and gives each the pages of its part", () => {
    const first = filler("alpha", 3);
    const second = filler("beta", 3);
    const text = `${first}\n\n${second}`;
    const source: PassageSource = {
      text,
      parts: [
        { start: 0, end: first.length, pages: { first: 1, last: 2, total: 9 } },
        { start: first.length + 2, end: text.length, pages: { first: 3, last: 3, total: 9 } },
      ],
    };
    const passages = passagesOf(source);
    expect(passages.map((p) => p.pages)).toEqual([
      { first: 1, last: 2 },
      { first: 3, last: 3 },
    ]);
    expect(passages[0]?.end).toBeLessThanOrEqual(first.length);
    expect(findPassage("beta paragraph", source)?.pages).toEqual({ first: 3, last: 3 });
  });
});

describe('findPassage (docs/research.md, "Checking citations")', () => {
  const source = plain(
    [
      filler("alpha", 12),
      "The slurp option reads the entire input stream into one large array and runs the filter once.",
      filler("gamma", 12),
    ].join("\n\n"),
  );

  it("returns the passage that best matches the claim by BM25, with its place, score and coverage", () => {
    const match = findPassage("Slurping reads the whole input into a large array.", source);
    expect(match?.text).toContain("The slurp option reads the entire input stream");
    expect(source.text.slice(match?.start, match?.end)).toBe(match?.text);
    expect(match?.score).toBeGreaterThan(0);
    expect(match?.coverage).toBeCloseTo(5 / 6);
  });

  it("ranks rare terms above common ones (inverse document frequency)", () => {
    // Each paragraph is a passage of its own; "gamma" is in all but one, often, "array" in one.
    const long = (words: string) => `${words} ${"filler ".repeat(60)}`.trim();
    const text = [...Array.from({ length: 8 }, (_, i) => long(`gamma gamma gamma item${i}`)), long("one array")].join(
      "\n\n",
    );
    expect(findPassage("gamma array", plain(text))?.text).toContain("one array");
  });

  it("lists the claim's terms as the passage writes them, a kanji run's bigrams joined", () => {
    expect(findPassage("slurp arrays", source)?.matched).toEqual(["slurp", "array"]);
    const japanese = plain("ある日の暮方の事である。一人の下人が、羅生門の下で雨やみを待っていた。");
    expect(findPassage("羅生門で下人が待つ", japanese)?.matched).toEqual(["下人が", "羅生門"]);
  });

  it("finds full-width text from a half-width claim", () => {
    expect(findPassage("ABC 50", plain("製品ＡＢＣは５０個ある。"))?.matched).toEqual(["ＡＢＣ", "５０"]);
  });

  it("returns null when no passage holds any of the claim's terms", () => {
    expect(findPassage("zebra", source)).toBeNull();
    expect(findPassage("the of", source)).toBeNull();
  });

  it("builds a source's index once for many claims, and again when its text changes", () => {
    const shared = plain(filler("delta", 40));
    const index = passageIndex(shared);
    findPassage("delta 7", shared);
    findPassage("delta 8", shared);
    expect(passageIndex(shared)).toBe(index);
    expect(passageIndex(plain(shared.text))).not.toBe(index);
    shared.text = filler("omega", 3);
    expect(passageIndex(shared)).not.toBe(index);
    expect(findPassage("omega", shared)?.text).toContain("omega");
  });
});
