/**
 * The one reading of a tool call's arguments as the model sent them: an object, or — small models
 * do this — a JSON string, or a JSON string inside a string. Used where Ollama's tool calls arrive
 * (lib/llm/ollama-chat.ts) and where any call is executed (lib/tools/registry.ts).
 */

export type ToolArguments = { ok: true; value: Record<string, unknown> } | { ok: false; error: string };

/** How many layers of JSON string are unwrapped. */
const MAX_STRING_LAYERS = 2;

/** The arguments as an object; nothing or a blank string is no arguments, anything else is why not. */
export function parseToolArguments(input: unknown): ToolArguments {
  let value = input ?? {};
  for (let layer = 0; typeof value === "string" && layer < MAX_STRING_LAYERS; layer++) {
    const text: string = value;
    if (!text.trim()) return { ok: true, value: {} };
    try {
      value = JSON.parse(text);
    } catch {
      return { ok: false, error: "arguments are not valid JSON" };
    }
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    return { ok: false, error: "arguments must be an object" };
  }
  return { ok: true, value: value as Record<string, unknown> };
}
