import { describe, expect, it } from "vitest";
import { memoryLine, memoryTerms, rankMemories, selectMemories } from "./select";

/** Which memories a turn's system prompt carries (docs/architecture.md, "Projects and memory"). */

let clock = 0;
const memory = (text: string, id = text) => ({ id, text, createdAt: ++clock });
const cost = (texts: string[]) => texts.map((text) => memoryLine(text)).join("\n").length;

describe("selectMemories", () => {
  it("includes every memory while they all fit the budget", () => {
    const all = [memory("I work in metric units."), memory("My team uses PostgreSQL 16."), memory("I live in Osaka.")];
    const { included, total } = selectMemories("What is the weather?", all, cost(all.map((m) => m.text)));
    expect(total).toBe(3);
    expect(included.map((m) => m.id).sort()).toEqual(all.map((m) => m.id).sort());
  });

  it("keeps the most relevant to the question first, and only as many as fit, when they do not all fit", () => {
    const all = [
      memory("I prefer answers in British English."),
      memory("My team uses PostgreSQL 16 in production."),
      memory("I have a cat named Miso."),
      memory("Our PostgreSQL backups run nightly with pg_dump."),
    ];
    const budget = cost([
      "My team uses PostgreSQL 16 in production.",
      "Our PostgreSQL backups run nightly with pg_dump.",
    ]);
    const { included, total } = selectMemories("Tuning PostgreSQL 16 for production?", all, budget);
    expect(total).toBe(4);
    expect(included.map((m) => m.text)).toEqual([
      "My team uses PostgreSQL 16 in production.",
      "Our PostgreSQL backups run nightly with pg_dump.",
    ]);
  });

  it("never goes over the budget, passing over a long memory for shorter ones after it", () => {
    const all = [memory(`metric ${"x".repeat(200)}`), memory("metric units"), memory("I like tea")];
    const { included } = selectMemories("metric", all, 40);
    expect(included.map((m) => m.text)).toEqual(["metric units", "I like tea"]);
    expect(cost(included.map((m) => m.text))).toBeLessThanOrEqual(40);
  });

  it("ranks Japanese memories by the question's character pairs, written without spaces", () => {
    const all = [memory("猫を二匹飼っている"), memory("東京の本社で働いている"), memory("メートル法を使う")];
    const ranked = rankMemories("東京のおすすめの店は？", all).sort((a, b) => b.score - a.score);
    expect(ranked[0]?.item.text).toBe("東京の本社で働いている");
    expect(memoryTerms("東京タワー")).toEqual(["東京", "京タ", "タワ", "ワー"]);
  });

  it("folds full-width forms and case as the library does", () => {
    const [hit, miss] = rankMemories("ＰＯＳＴＧＲＥＳ", [memory("Postgres everywhere"), memory("MySQL elsewhere")]);
    expect(hit?.score).toBeGreaterThan(0);
    expect(miss?.score).toBe(0);
  });

  it("stop words do not decide the ranking: a question full of them ranks the memory sharing its content word first", () => {
    const all = [
      memory("The best of the things that is on the list of the year is the one at the top."),
      memory("Cat: Miso."),
      memory("I work in metric units."),
    ];
    const ranked = rankMemories("What is the name of the cat that is in the house of the year?", all).sort(
      (a, b) => b.score - a.score,
    );
    expect(ranked[0]?.item.text).toBe("Cat: Miso.");
    expect(memoryTerms("What is the name of the cat?")).toEqual(["name", "cat"]);
  });

  it("Japanese particles and endings do not decide the ranking: the memory sharing the question's word comes first", () => {
    const all = [memory("それはにをのはがですますか"), memory("猫の名前はミソ"), memory("メートル法を使う")];
    const ranked = rankMemories("猫はどこにいますか？それは何ですか？", all).sort((a, b) => b.score - a.score);
    expect(ranked[0]?.item.text).toBe("猫の名前はミソ");
    expect(ranked.find((entry) => entry.item.text.startsWith("それは"))?.score).toBe(0);
    // Cut at its particles, the words on either side stay.
    expect(memoryTerms("日本の首都は東京です")).toEqual(["日本", "首都", "東京"]);
    expect(memoryTerms("猫はどこですか")).toEqual(["猫", "どこ"]);
  });
});
