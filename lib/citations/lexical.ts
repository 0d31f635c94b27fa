/**
 * The lexical check of a claim against its passage (docs/research.md, "Checking citations"): the
 * claim's numbers, dates and names must appear in the passage. Numbers are compared as numbers
 * ("1,200" is "1200", "３.５０" is "3.5"), dates as dates ("2024-03-01" is "March 1, 2024" is
 * "2024年3月1日"), names as words (capitalised words not at the sentence's start, acronyms, and in
 * Japanese katakana runs). What the claim says of them — a negation, a comparison — is not lexical:
 * the verifier judges that. Framework-free.
 */

import { fold, numberTerm, stem } from "./terms";

/** A number, date or name of a claim: as the claim writes it, and the value it is compared by. */
export interface Fact {
  kind: "number" | "date" | "name";
  written: string;
  value: string;
}

const MONTHS = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"];
const MONTH =
  "(?:Jan(?:uary)?|Feb(?:ruary)?|Mar(?:ch)?|Apr(?:il)?|May|June?|July?|Aug(?:ust)?|Sept?(?:ember)?|Oct(?:ober)?|Nov(?:ember)?|Dec(?:ember)?)";

/** Date forms, each with the places of its year, month and day. */
const DATE_FORMS: { pattern: RegExp; y: number; m: number; d?: number }[] = [
  { pattern: /(?<!\d)(\d{4})[-/.](\d{1,2})[-/.](\d{1,2})(?!\d)/g, y: 1, m: 2, d: 3 },
  { pattern: /(?<!\d)(\d{4})\s*年\s*(\d{1,2})\s*月(?:\s*(\d{1,2})\s*日)?/g, y: 1, m: 2, d: 3 },
  {
    pattern: new RegExp(`\\b(${MONTH})\\.?\\s+(\\d{1,2})(?:st|nd|rd|th)?,?\\s+(\\d{4})(?!\\d)`, "g"),
    y: 3,
    m: 1,
    d: 2,
  },
  {
    pattern: new RegExp(`(?<!\\d)(\\d{1,2})(?:st|nd|rd|th)?\\s+(${MONTH})\\.?,?\\s+(\\d{4})(?!\\d)`, "g"),
    y: 3,
    m: 2,
    d: 1,
  },
  { pattern: new RegExp(`\\b(${MONTH})\\.?,?\\s+(\\d{4})(?!\\d)`, "g"), y: 2, m: 1 },
];

/** Numbers: thousands grouped by commas or spaces, decimals, versions, a percent sign. */
const NUMBER = /(?<![\d.])\d{1,3}(?:(?:,|[ \u00a0\u202f])\d{3})+(?:\.\d+)?(?![\d,])%?|(?<![\d.])\d+(?:\.\d+)*%?/g;

const WORD = /[\p{L}\p{M}\p{Nd}]+(?:['’]s)?/gu;
const KATAKANA_RUN = /[\p{sc=Katakana}\u30fc]{2,}/gu;
const CJK = /[\p{sc=Han}\p{sc=Hiragana}\p{sc=Katakana}]/u;
// Capitalised words that name nothing.
const NOT_NAMES = new Set(
  "a an and as at but by for from he her his how i if in into is it its my no not of on or our she so that the their then there these they this those to we what when where which who why with you your".split(
    " ",
  ),
);

function monthNumber(written: string): number {
  return MONTHS.indexOf(written.slice(0, 3).toLowerCase()) + 1;
}

function dateValue(match: RegExpMatchArray, form: (typeof DATE_FORMS)[number]): string {
  const part = (index: number | undefined) => (index === undefined ? undefined : match[index]);
  const month = part(form.m) ?? "";
  const m = /^\d+$/.test(month) ? Number(month) : monthNumber(month);
  const day = part(form.d);
  return [Number(part(form.y)), m, ...(day ? [Number(day)] : [])].join("-");
}

/** The numbers, dates and names of `text`, as it writes them. */
export function factsOf(text: string): Fact[] {
  const folded = fold(text);
  const written = (start: number, end: number) => text.slice(folded.from[start] ?? 0, folded.to[end - 1] ?? 0);
  const facts: { fact: Fact; start: number }[] = [];
  // Dates first; their digits are no numbers of their own.
  let rest = folded.text;
  for (const form of DATE_FORMS) {
    for (const match of rest.matchAll(form.pattern)) {
      const start = match.index ?? 0;
      const end = start + match[0].length;
      facts.push({ fact: { kind: "date", written: written(start, end), value: dateValue(match, form) }, start });
      rest = rest.slice(0, start) + " ".repeat(end - start) + rest.slice(end);
    }
  }
  for (const match of rest.matchAll(NUMBER)) {
    const start = match.index ?? 0;
    const value = numberValue(match[0]);
    facts.push({ fact: { kind: "number", written: written(start, start + match[0].length), value }, start });
  }
  const cjk = CJK.test(folded.text);
  let first = true;
  for (const match of rest.matchAll(WORD)) {
    const word = match[0];
    const start = match.index ?? 0;
    const atStart = first && !cjk;
    first = false;
    if (!/\p{L}/u.test(word) || CJK.test(word)) continue;
    const bare = word.replace(/['’]s$/, "");
    const acronym = /^\p{Lu}[\p{Lu}\d]+s?$/u.test(bare) && /\p{Lu}.*\p{Lu}|\p{Lu}\d/u.test(bare);
    const inner = /^.+\p{Lu}/u.test(bare) && /\p{Ll}/u.test(bare);
    const capital = /^\p{Lu}/u.test(bare) && !NOT_NAMES.has(bare.toLowerCase());
    if (acronym || inner || (capital && !atStart)) {
      facts.push({
        fact: { kind: "name", written: written(start, start + bare.length), value: nameValue(bare) },
        start,
      });
    }
  }
  for (const match of rest.matchAll(KATAKANA_RUN)) {
    if (/^\u30fc+$/.test(match[0])) continue;
    const start = match.index ?? 0;
    facts.push({ fact: { kind: "name", written: written(start, start + match[0].length), value: match[0] }, start });
  }
  return facts.sort((a, b) => a.start - b.start).map(({ fact }) => fact);
}

function numberValue(written: string): string {
  const bare = written.replace(/%$/, "");
  return /\d\.\d+\./.test(bare) ? bare : numberTerm(bare);
}

function nameValue(word: string): string {
  return stem(word.toLowerCase());
}

/** What a passage holds, to look facts up in. */
interface PassageFacts {
  numbers: Set<string>;
  dates: string[];
  words: Set<string>;
  text: string;
}

function passageFacts(passage: string): PassageFacts {
  const facts = factsOf(passage);
  const folded = fold(passage).text;
  const numbers = new Set<string>();
  // Every run of digits counts too: a date's year or a space-grouped number's pieces.
  for (const match of folded.matchAll(/(?<![\d,])\d+(?:\.\d+)*(?!,\d)/g)) numbers.add(numberValue(match[0]));
  for (const fact of facts) if (fact.kind === "number") numbers.add(fact.value);
  const words = new Set<string>();
  for (const match of folded.matchAll(WORD)) words.add(nameValue(match[0].replace(/['’]s$/, "")));
  return {
    numbers,
    dates: facts.filter((fact) => fact.kind === "date").map((fact) => fact.value),
    words,
    text: folded,
  };
}

function holds(passage: PassageFacts, fact: Fact): boolean {
  switch (fact.kind) {
    case "number":
      return passage.numbers.has(fact.value);
    case "date": {
      const [year = ""] = fact.value.split("-");
      // A date the passage writes with more detail holds a date given with less ("March 2024").
      if (passage.dates.some((date) => date === fact.value || date.startsWith(`${fact.value}-`))) return true;
      return fact.value === year && passage.numbers.has(year);
    }
    case "name":
      return CJK.test(fact.value) ? passage.text.includes(fact.value) : passage.words.has(fact.value);
  }
}

/** The numbers, dates and names of `claim` that `passage` does not contain, as the claim writes them. */
export function missingFacts(claim: string, passage: string): string[] {
  const held = passageFacts(passage);
  const missing: string[] = [];
  for (const fact of factsOf(claim)) {
    if (!holds(held, fact) && !missing.includes(fact.written)) missing.push(fact.written);
  }
  return missing;
}
