/**
 * The names and descriptions the model sees for a server's tools. Tool-calling models (and Ollama's
 * templates) take names of `[A-Za-z0-9_-]`, at most 64 characters; a tool is `server__tool`, so two
 * servers never share a name with each other or with a built-in tool.
 */

export const MAX_TOOL_NAME = 64;
/** A description is for choosing the tool; a longer one costs every request its context. */
export const MAX_TOOL_DESCRIPTION = 1000;

/** Each tool name of one server mapped to its qualified name, unique among them, in listing order. */
export function qualifyToolNames(server: string, tools: readonly string[]): Map<string, string> {
  const prefix = `${server}__`;
  const room = MAX_TOOL_NAME - prefix.length;
  const taken = new Set<string>();
  const names = new Map<string, string>();
  for (const tool of tools) {
    if (names.has(tool)) continue;
    const base = tool.replace(/[^A-Za-z0-9_-]/gu, "_").slice(0, room) || "tool";
    let name = base;
    for (let n = 2; taken.has(name.toLowerCase()); n++) {
      const suffix = `_${n}`;
      name = base.slice(0, room - suffix.length) + suffix;
    }
    taken.add(name.toLowerCase());
    names.set(tool, prefix + name);
  }
  return names;
}

/** The description cut at a word boundary, whitespace runs kept to single spaces within lines. */
export function trimDescription(description: string | undefined): string {
  const text = (description ?? "")
    .replace(/[^\S\n]+/g, " ")
    .replace(/\n{3,}/g, "\n\n")
    .trim();
  if (text.length <= MAX_TOOL_DESCRIPTION) return text;
  const head = text.slice(0, MAX_TOOL_DESCRIPTION - 1);
  const space = head.lastIndexOf(" ");
  return `${space > MAX_TOOL_DESCRIPTION / 2 ? head.slice(0, space) : head}…`;
}
