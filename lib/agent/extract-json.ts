/**
 * Finds the JSON object in what a model wrote: a direct parse; the same with invalid
 * escapes repaired; inside ```json fences (greedy, then lazy); then a string-aware scan for the
 * first balanced `{...}`. Each candidate also gets a lenient pass for the usual small-model slips
 * (trailing commas, single quotes, Python literals). Returns undefined when nothing parses.
 */

type JsonObject = Record<string, unknown>;

const VALID_ESCAPE = /["\\/bfnrtu]/;

/** Doubles backslashes inside strings that do not start a valid JSON escape (`\d`, `\frac`'s `\(`...). */
export function repairInvalidEscapes(text: string): string {
  let out = "";
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const char = text[i] as string;
    if (!inString) {
      if (char === '"') inString = true;
      out += char;
      continue;
    }
    if (char === "\\") {
      const next = text[i + 1] ?? "";
      const validUnicode = next === "u" && /^[0-9a-fA-F]{4}$/.test(text.slice(i + 2, i + 6));
      if (next === "u" ? validUnicode : VALID_ESCAPE.test(next)) {
        out += char + next;
        i++;
      } else {
        out += "\\\\";
      }
      continue;
    }
    if (char === '"') inString = false;
    // Raw newlines and tabs inside strings are invalid JSON but common in model output.
    out += char === "\n" ? "\\n" : char === "\t" ? "\\t" : char === "\r" ? "\\r" : char;
  }
  return out;
}

const PYTHON_WORD = /(True|False|None)\b/y;

/** Trailing commas, single-quoted strings and Python's True/False/None, outside double-quoted strings. */
function repairLenient(text: string): string {
  let out = "";
  let quote: string | null = null;
  for (let i = 0; i < text.length; i++) {
    const char = text[i] as string;
    if (quote) {
      if (char === "\\") {
        out += char + (text[i + 1] ?? "");
        i++;
        continue;
      }
      if (char === quote) {
        quote = null;
        out += '"';
        continue;
      }
      out += quote === "'" && char === '"' ? '\\"' : char;
      continue;
    }
    if (char === '"' || char === "'") {
      quote = char;
      out += '"';
      continue;
    }
    if (char === ",") {
      let next = i + 1;
      while (next < text.length && /\s/.test(text[next] as string)) next++;
      if (text[next] === "}" || text[next] === "]") continue;
    }
    // Looked at in place (a sticky regex), never on a copy of the rest: linear in the text.
    PYTHON_WORD.lastIndex = i;
    const word = char === "T" || char === "F" || char === "N" ? PYTHON_WORD.exec(text) : null;
    if (word && !/[\w$]/.test(text[i - 1] ?? "")) {
      out += word[1] === "True" ? "true" : word[1] === "False" ? "false" : "null";
      i += (word[1] as string).length - 1;
      continue;
    }
    out += char;
  }
  return out;
}

/** A JSON value (object, array, ...) with the same repairs as objects get; undefined when none parses. */
export function parseLenientJson(text: string): unknown {
  // Each repair is made only when the text before it did not parse, and parsed only when it
  // changed something: a failed parse is a thrown error, the costly part of this on every reply.
  const tried = new Set<string>();
  for (const candidate of [
    () => text,
    () => repairInvalidEscapes(text),
    () => repairLenient(text),
    () => repairInvalidEscapes(repairLenient(text)),
  ]) {
    const repaired = candidate();
    if (tried.has(repaired)) continue;
    tried.add(repaired);
    try {
      return JSON.parse(repaired) as unknown;
    } catch {
      // try the next repair
    }
  }
  return undefined;
}

function parseObject(text: string): JsonObject | undefined {
  const value = parseLenientJson(text);
  if (value && typeof value === "object" && !Array.isArray(value)) return value as JsonObject;
  if (typeof value === "string" && value.trim().startsWith("{")) return parseObject(value);
  return undefined;
}

/** Every balanced `{...}` in order of its opening brace, skipping braces inside strings. */
function* balancedObjects(text: string): Generator<string> {
  for (let start = text.indexOf("{"); start !== -1; start = text.indexOf("{", start + 1)) {
    let depth = 0;
    let quote: string | null = null;
    for (let i = start; i < text.length; i++) {
      const char = text[i];
      if (quote) {
        if (char === "\\") i++;
        else if (char === quote) quote = null;
        continue;
      }
      if (char === '"') quote = char;
      else if (char === "{") depth++;
      else if (char === "}" && --depth === 0) {
        yield text.slice(start, i + 1);
        break;
      }
    }
  }
}

export function extractJson(raw: string): JsonObject | undefined {
  const text = raw.replace(/<think>[\s\S]*?<\/think>/gi, "").trim();
  if (!text) return undefined;
  const direct = parseObject(text);
  if (direct) return direct;
  for (const fence of [/```(?:json|JSON)?\s*([\s\S]*)```/, /```(?:json|JSON)?\s*([\s\S]*?)```/]) {
    const body = fence.exec(text)?.[1];
    const parsed = body ? parseObject(body.trim()) : undefined;
    if (parsed) return parsed;
  }
  for (const candidate of balancedObjects(text)) {
    const parsed = parseObject(candidate);
    if (parsed) return parsed;
  }
  return undefined;
}
