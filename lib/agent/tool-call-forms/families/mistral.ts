import { callsFromValue } from "../call-object";
import { parseValue, scanValue } from "../scan";
import type { TextToolCall, ToolCallForm } from "../types";

/**
 * `[TOOL_CALLS]` (Mistral, Devstral, Ministral): an array of call objects (also as Python
 * literals with single quotes), or the newer tokenizer's `name[ARGS]{…}` / `name{…}`, repeated
 * once per call. Explicit markup: what cannot be read is an unrunnable call, not an answer.
 */

const MARKER = "[TOOL_CALLS]";
const NAMED = /^([A-Za-z_][\w.-]*)\s*(?:\[CALL_ID\][^[{]*)?(?:\[ARGS\])?\s*/;

function callsAfter(text: string, start: number): TextToolCall[] {
  let i = start;
  while (i < text.length && /\s/.test(text[i] as string)) i++;
  const first = text[i];
  if (first === "[" || first === "{") {
    const scanned = scanValue(text, i);
    return scanned ? callsFromValue(parseValue(scanned.text)) : [];
  }
  const named = NAMED.exec(text.slice(i, i + 300));
  if (!named) return [];
  const scanned = scanValue(text, i + named[0].length);
  const args = scanned ? parseValue(scanned.text) : undefined;
  return args === undefined ? [] : callsFromValue({ name: named[1], arguments: args });
}

export const mistralForm: ToolCallForm = {
  family: "mistral",
  recognise(text) {
    if (!text.includes(MARKER)) return null;
    const calls: TextToolCall[] = [];
    for (let at = text.indexOf(MARKER); at !== -1; at = text.indexOf(MARKER, at + MARKER.length)) {
      calls.push(...callsAfter(text, at + MARKER.length));
    }
    return calls;
  },
};
