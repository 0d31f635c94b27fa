import { parseLenientJson } from "../extract-json";

/**
 * Linear scans over model text: where a balanced `{…}` or `[…]` ends (quotes of either kind
 * respected), and JSON values one after another with the separators models put between calls.
 */

export interface ScannedValue {
  /** The value's text, with a missing last closing brace added back. */
  text: string;
  /** Index just past the value in the scanned text. */
  end: number;
}

const CLOSER: Record<string, string> = { "{": "}", "[": "]" };

/**
 * The balanced value that opens at `start`. A value cut off one closing brace short at the end of
 * the text (seen from gpt-oss and Llama 3.2 Vision) is repaired; anything else unbalanced is null.
 */
export function scanValue(text: string, start: number): ScannedValue | null {
  const open = text[start];
  if (open !== "{" && open !== "[") return null;
  const stack: string[] = [];
  let quote: string | null = null;
  for (let i = start; i < text.length; i++) {
    const char = text[i] as string;
    if (quote) {
      if (char === "\\") i++;
      else if (char === quote) quote = null;
      continue;
    }
    if (char === '"' || char === "'") {
      // An apostrophe inside a word ("don't") is not a quote.
      if (char === "'" && /\w/.test(text[i - 1] ?? "") && /\w/.test(text[i + 1] ?? "")) continue;
      quote = char;
    } else if (char === "{" || char === "[") stack.push(CLOSER[char] as string);
    else if (char === "}" || char === "]") {
      if (stack.pop() !== char) return null;
      if (stack.length === 0) return { text: text.slice(start, i + 1), end: i + 1 };
    }
  }
  if (!quote && stack.length === 1 && stack[0] === "}")
    return { text: `${text.slice(start).trimEnd()}}`, end: text.length };
  return null;
}

/**
 * Every balanced `{…}` in the text, outermost first in order of opening, found in one pass (quotes
 * respected from the start of the text): linear however many openings never close. An object
 * left open one brace short at the end counts, repaired.
 */
export function objectsIn(text: string): ScannedValue[] {
  const spans: { start: number; value: ScannedValue }[] = [];
  const stack: { char: string; at: number }[] = [];
  let quote: string | null = null;
  for (let i = 0; i < text.length; i++) {
    const char = text[i] as string;
    if (quote) {
      if (char === "\\") i++;
      else if (char === quote) quote = null;
      continue;
    }
    if (char === '"') quote = char;
    else if (char === "{" || char === "[") stack.push({ char, at: i });
    else if (char === "}" || char === "]") {
      const open = stack.pop();
      if (!open || CLOSER[open.char] !== char) {
        stack.length = 0;
        continue;
      }
      if (char === "}") spans.push({ start: open.at, value: { text: text.slice(open.at, i + 1), end: i + 1 } });
    }
  }
  if (!quote && stack.length === 1 && stack[0]?.char === "{") {
    const at = stack[0].at;
    spans.push({ start: at, value: { text: `${text.slice(at).trimEnd()}}`, end: text.length } });
  }
  return spans.sort((a, b) => a.start - b.start).map((span) => span.value);
}

/** Parses a scanned value leniently (single quotes, Python literals, trailing commas, bad escapes). */
export function parseValue(text: string): unknown {
  return parseLenientJson(text);
}

/**
 * Every value in `text` from `start` when the text is nothing but values separated by whitespace,
 * `;` or `,` (several calls in a row); null when anything else stands between or after them.
 */
export function valuesInRow(text: string, start = 0): unknown[] | null {
  const values: unknown[] = [];
  let i = start;
  for (;;) {
    while (i < text.length && /[\s;,]/.test(text[i] as string)) i++;
    if (i >= text.length) return values.length > 0 ? values : null;
    const scanned = scanValue(text, i);
    if (!scanned) return null;
    const value = parseValue(scanned.text);
    if (value === undefined) return null;
    values.push(value);
    i = scanned.end;
  }
}
