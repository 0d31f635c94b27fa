/**
 * Hyphens at line ends. A typesetter's hyphen ("confus-" + "ing") and a compound's own hyphen
 * ("well-" + "known") look the same, so a line-end hyphen is removed and the word joined only when
 * the joined word is found written whole in the text around it (`knownWords`), or when the producer
 * marked the break as a soft hyphen (U+00AD). Soft hyphens elsewhere are invisible and are dropped.
 */

const SOFT_HYPHEN = "\u00ad";
/** A word broken at the line end: its letters, then a hyphen (-, U+2010) or a soft hyphen, or both. */
const BROKEN_END = /(\p{L}+)(\u00ad?[-\u2010]|\u00ad)$/u;
/** The rest of a broken word at the start of the next line: lower-case letters, then what clings to them. */
const REST_START = /^(\p{Ll}\p{L}*)(\S*) ?/u;

/** The words of `text`, lower-cased. */
export function knownWords(text: string): Set<string> {
  return new Set(
    text
      .replaceAll(SOFT_HYPHEN, "")
      .toLowerCase()
      .match(/\p{L}+/gu) ?? [],
  );
}

export function joinHyphenatedLines(text: string, known: ReadonlySet<string>): string {
  const lines = text.split("\n");
  for (let i = 0; i + 1 < lines.length; i++) {
    const broken = BROKEN_END.exec(lines[i]!);
    const rest = broken && REST_START.exec(lines[i + 1]!);
    if (!broken || !rest) continue;
    const [, head = "", hyphen = ""] = broken;
    const [taken = "", tail = "", clinging = ""] = rest;
    if (!hyphen.includes(SOFT_HYPHEN) && !known.has((head + tail).toLowerCase())) continue;
    lines[i] = lines[i]!.slice(0, -hyphen.length) + tail + clinging;
    lines[i + 1] = lines[i + 1]!.slice(taken.length);
    if (lines[i + 1] === "") lines.splice(i + 1, 1);
  }
  return lines.join("\n").replaceAll(SOFT_HYPHEN, "");
}
