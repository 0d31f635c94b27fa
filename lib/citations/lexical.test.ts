import { describe, expect, it } from "vitest";
import { factsOf, missingFacts } from "./lexical";

const facts = (text: string) => factsOf(text).map((fact) => `${fact.kind}:${fact.written}=${fact.value}`);

describe('lexical check (docs/research.md, "Checking citations")', () => {
  it("compares numbers as numbers: 1,234, 1 234 and 1234 are one number, as are ５０ and 50, 3.50 and 3.5", () => {
    const passage = "It holds 1234 entries, about 3.5 per key, and 50% of them are new.";
    expect(missingFacts("It holds 1,234 entries.", passage)).toEqual([]);
    expect(missingFacts("It holds 1 234 entries.", passage)).toEqual([]);
    expect(missingFacts("About 3.50 per key.", passage)).toEqual([]);
    expect(missingFacts("５０% are new.", passage)).toEqual([]);
    expect(missingFacts("It holds 1,243 entries, 60% new.", passage)).toEqual(["1,243", "60%"]);
  });

  it("does not take a part of a grouped number for the number: 1,200 does not hold 200", () => {
    expect(missingFacts("200 packages.", "There are 1,200 packages.")).toEqual(["200"]);
  });

  it("compares dates as dates: 2024-03-01, March 1, 2024 and 2024年3月1日 are one date", () => {
    const passage = "Released on March 1, 2024 after a long freeze.";
    expect(missingFacts("It was released on 2024-03-01.", passage)).toEqual([]);
    expect(missingFacts("2024年3月1日に公開された。", passage)).toEqual([]);
    expect(missingFacts("It was released in March 2024.", passage)).toEqual([]);
    expect(missingFacts("It was released on 2024-03-02.", passage)).toEqual(["2024-03-02"]);
    expect(missingFacts("It was released on 1 April 2024.", passage)).toEqual(["1 April 2024"]);
  });

  it("reads names: capitalised words not at the sentence's start, acronyms, katakana runs", () => {
    expect(facts("The tool was written by Stephen Dolan for NASA and PostgreSQL")).toEqual([
      "name:Stephen=stephen",
      "name:Dolan=dolan",
      "name:NASA=nasa",
      "name:PostgreSQL=postgresql",
    ]);
    expect(facts("Packages are built by Debian")).toEqual(["name:Debian=debian"]);
    expect(facts("it runs on iPhone")).toEqual(["name:iPhone=iphon"]);
    expect(facts("NASA and PostgreSQL use it")).toEqual(["name:NASA=nasa", "name:PostgreSQL=postgresql"]);
    expect(facts("下人はコンピュータを使わない")).toEqual(["name:コンピュータ=コンピュータ"]);
  });

  it("lists the names a passage does not contain, as the claim writes them", () => {
    const passage = "jq was written by Stephen Dolan; Debian's package is maintained by volunteers.";
    expect(missingFacts("jq was written by Stephen Dolan for Debian.", passage)).toEqual([]);
    expect(missingFacts("jq was written by Ken Thompson for Debian.", passage)).toEqual(["Ken", "Thompson"]);
    expect(missingFacts("ファイルはデータを保存する。", "ファイルに保存する")).toEqual(["データ"]);
  });

  it("does not read a negation: that is the verifier's judgement", () => {
    expect(missingFacts("jq does not read JSON.", "jq reads JSON.")).toEqual([]);
  });
});
