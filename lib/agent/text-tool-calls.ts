import { extractJson } from "./extract-json";

/**
 * Small models often write a tool call as JSON text in `content` instead of a real call
 * (OLLAMA-PROTOCOL "How small models break tool calling"): fenced, bare, wrapped in
 * `<tool_call>` tags, with `arguments` or `parameters`, sometimes as a JSON string. Recognised
 * only for tools that exist, so ordinary JSON in an answer is left alone.
 */

export interface TextToolCall {
  name: string;
  arguments: Record<string, unknown>;
}

function asArguments(value: unknown): Record<string, unknown> | null {
  if (value === undefined || value === null) return {};
  if (typeof value === "string") {
    const parsed = extractJson(value);
    return parsed ?? null;
  }
  return typeof value === "object" && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
}

function toCall(object: Record<string, unknown>, known: Set<string>): TextToolCall | null {
  const fn =
    object.function && typeof object.function === "object" ? (object.function as Record<string, unknown>) : null;
  const name = object.name ?? object.tool_name ?? object.tool ?? fn?.name;
  if (typeof name !== "string" || !known.has(name)) return null;
  const args = asArguments(object.arguments ?? object.parameters ?? object.tool_args ?? object.args ?? fn?.arguments);
  return args ? { name, arguments: args } : null;
}

export function recoverTextToolCalls(content: string, toolNames: string[]): TextToolCall[] {
  if (!content.includes("{")) return [];
  const known = new Set(toolNames);
  const blocks = content.includes("</tool_call>") ? content.split(/<\/tool_call>/) : [content];
  const calls: TextToolCall[] = [];
  for (const block of blocks) {
    const object = extractJson(block.replace(/<tool_call>/g, ""));
    if (!object) continue;
    const list = Array.isArray(object.tool_calls) ? (object.tool_calls as Record<string, unknown>[]) : [object];
    for (const item of list) {
      const call = item && typeof item === "object" ? toCall(item, known) : null;
      if (call) calls.push(call);
    }
  }
  return calls;
}
