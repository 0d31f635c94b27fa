import { parseValue } from "./scan";
import type { FormContext, TextToolCall } from "./types";

/**
 * Python-call style, `get_weather(location="San Francisco", days=3)` (Granite, Llama 4's pythonic
 * lists `[a(x=1), b(y=2)]`, Gemma's tool_code): keyword arguments with Python literals. A name
 * counts only when it is an offered tool, so prose that mentions a function is left alone.
 */

const NAME = /^[A-Za-z_][\w.-]*/;

/** Index of the `)` closing the `(` at `open`, quotes and nesting respected; -1 when unclosed. */
function closingParen(text: string, open: number): number {
  let depth = 0;
  let quote: string | null = null;
  for (let i = open; i < text.length; i++) {
    const char = text[i] as string;
    if (quote) {
      if (char === "\\") i++;
      else if (char === quote) quote = null;
      continue;
    }
    if (char === '"' || char === "'") quote = char;
    else if (char === "(" || char === "[" || char === "{") depth++;
    else if (char === ")" || char === "]" || char === "}") {
      depth--;
      if (depth === 0) return char === ")" ? i : -1;
    }
  }
  return -1;
}

/** Splits `a=1, b="x, y"` at its top-level commas. */
function topLevelParts(text: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let quote: string | null = null;
  let from = 0;
  for (let i = 0; i < text.length; i++) {
    const char = text[i] as string;
    if (quote) {
      if (char === "\\") i++;
      else if (char === quote) quote = null;
      continue;
    }
    if (char === '"' || char === "'") quote = char;
    else if ("([{".includes(char)) depth++;
    else if (")]}".includes(char)) depth--;
    else if (char === "," && depth === 0) {
      parts.push(text.slice(from, i));
      from = i + 1;
    }
  }
  parts.push(text.slice(from));
  return parts.map((part) => part.trim()).filter(Boolean);
}

function keywordArguments(inner: string): Record<string, unknown> | null {
  const args: Record<string, unknown> = {};
  for (const part of topLevelParts(inner)) {
    const match = /^([A-Za-z_]\w*)\s*=(?!=)\s*([\s\S]+)$/.exec(part);
    if (!match) return null;
    const value = parseValue(match[2] as string);
    if (value === undefined) return null;
    args[match[1] as string] = value;
  }
  return args;
}

/**
 * The calls when `text` is nothing but Python-style calls of offered tools (in a row, or in one
 * `[…]` list); null otherwise.
 */
export function pythonCalls(text: string, context: FormContext): TextToolCall[] | null {
  let body = text.trim();
  if (body.startsWith("[") && body.endsWith("]")) body = body.slice(1, -1).trim();
  const calls: TextToolCall[] = [];
  let i = 0;
  while (i < body.length) {
    while (i < body.length && /[\s;,]/.test(body[i] as string)) i++;
    if (i >= body.length) break;
    const name = NAME.exec(body.slice(i, i + 200))?.[0];
    if (!name) return null;
    const open = i + name.length;
    if (body[open] !== "(") return null;
    const close = closingParen(body, open);
    if (close === -1) return null;
    const resolved = context.resolve(name);
    const args = keywordArguments(body.slice(open + 1, close));
    if (!resolved || !args) return null;
    calls.push({ name: resolved, arguments: args });
    i = close + 1;
  }
  return calls.length > 0 ? calls : null;
}
