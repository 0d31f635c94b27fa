/** Levels of indentation shown; deeper levels are indented as this one. */
const MAX_INDENT = 24;

/**
 * JSON indented two spaces a level, for a model to read. The text is re-spaced token by token, never
 * parsed into values and printed back: numbers keep every digit (an id past 2^53 stays the same id),
 * strings keep their escapes, and any depth costs no stack. Text that is not JSON (JSON Lines,
 * comments, a cut-off file) is returned as it is. Indentation stops growing at MAX_INDENT levels, so
 * a pathologically deep file grows linearly, not quadratically.
 */
export function prettyJson(text: string): string {
  try {
    JSON.parse(text);
  } catch {
    return text;
  }
  const out: string[] = [];
  let depth = 0;
  let at = 0;
  const newline = () => `\n${"  ".repeat(Math.min(depth, MAX_INDENT))}`;
  while (at < text.length) {
    const char = text[at] as string;
    if (char === '"') {
      let end = at + 1;
      while (text[end] !== '"') end += text[end] === "\\" ? 2 : 1;
      out.push(text.slice(at, end + 1));
      at = end + 1;
      continue;
    }
    if (char === "{" || char === "[") {
      const close = char === "{" ? "}" : "]";
      let next = at + 1;
      while (next < text.length && /\s/.test(text[next] as string)) next++;
      if (text[next] === close) {
        out.push(char + close);
        at = next + 1;
        continue;
      }
      depth++;
      out.push(char, newline());
    } else if (char === "}" || char === "]") {
      depth--;
      out.push(newline(), char);
    } else if (char === ",") out.push(",", newline());
    else if (char === ":") out.push(": ");
    else if (!/\s/.test(char)) {
      // A number or literal: up to the next structural character or space, in one slice.
      let end = at + 1;
      while (end < text.length && !/[\s,:\]}]/.test(text[end] as string)) end++;
      out.push(text.slice(at, end));
      at = end;
      continue;
    }
    at++;
  }
  return out.join("");
}
