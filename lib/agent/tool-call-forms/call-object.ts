import { parseValue } from "./scan";
import type { TextToolCall } from "./types";

/**
 * One object a model wrote as a call, in any of the key spellings seen: the name under `name`,
 * `tool`, `tool_name` or `function` (a string, or `{name, arguments}`), or `method` (a JSON-RPC
 * request, as Mistral Nemo wrote one; a method that is no offered tool stays JSON); the arguments under
 * `arguments`, `parameters`, `args`, `input`, `tool_input`, `params` or `tool_args`, as an object
 * or a JSON string. `{"tool_calls": […]}` and arrays hold several.
 */

const NAME_KEYS = ["name", "tool_name", "tool", "function", "method"] as const;
const ARGUMENT_KEYS = ["arguments", "parameters", "args", "input", "tool_input", "params", "tool_args"] as const;

type JsonObject = Record<string, unknown>;

const isObject = (value: unknown): value is JsonObject =>
  typeof value === "object" && value !== null && !Array.isArray(value);

function argumentsOf(value: unknown): Record<string, unknown> | null {
  if (value === undefined || value === null) return {};
  if (typeof value === "string") {
    if (!value.trim()) return {};
    const parsed = parseValue(value);
    return isObject(parsed) ? parsed : null;
  }
  return isObject(value) ? value : null;
}

/** The call an object spells, or null when it names no tool or its arguments are not an object. */
export function callFromObject(object: JsonObject): TextToolCall | null {
  const nested = isObject(object.function) ? object.function : null;
  if (nested) return callFromObject(nested);
  const key = NAME_KEYS.find((candidate) => typeof object[candidate] === "string");
  if (!key) return null;
  const name = (object[key] as string).trim();
  if (!name) return null;
  const argumentKey = ARGUMENT_KEYS.find((candidate) => candidate in object);
  const args = argumentsOf(argumentKey ? object[argumentKey] : undefined);
  return args ? { name, arguments: args } : null;
}

/** The calls in a parsed value: an object, `{"tool_calls": […]}`, or an array of them. */
export function callsFromValue(value: unknown): TextToolCall[] {
  if (Array.isArray(value)) return value.flatMap(callsFromValue);
  if (!isObject(value)) return [];
  if (Array.isArray(value.tool_calls)) return value.tool_calls.flatMap(callsFromValue);
  // `{"tools": {…}}` / `{"tools": […]}`: the calls wrapped once more.
  if (isObject(value.tools) || Array.isArray(value.tools)) return callsFromValue(value.tools);
  const call = callFromObject(value);
  return call ? [call] : [];
}
