import { callsFromValue } from "../call-object";
import { objectsIn, parseValue, valuesInRow } from "../scan";
import type { FormContext, Recognised, TextToolCall, ToolCallForm } from "../types";

/**
 * Bare or fenced JSON (Llama 3.x, Qwen 2.5, Granite, most small models): one object, an array,
 * or several objects in a row separated by newlines, `;` or `,`, in any key spelling. Counted only
 * when every name is an offered tool, so ordinary JSON in an answer stays an answer.
 */

const FENCE = /```(?:json|tool_call|tool_calls)?[ \t]*\n?([\s\S]*?)```/i;
/** Openings looked at when the calls are not the whole text: a bound on the work per reply. */
const MAX_OPENINGS = 32;

function allOffered(calls: TextToolCall[], context: FormContext): TextToolCall[] | null {
  const resolved: TextToolCall[] = [];
  for (const call of calls) {
    const name = context.resolve(call.name);
    if (!name) return null;
    resolved.push({ name, arguments: call.arguments });
  }
  return resolved.length > 0 ? resolved : null;
}

function wholeText(body: string, context: FormContext): Recognised {
  const values = valuesInRow(body.trim());
  if (!values) return null;
  const perValue = values.map(callsFromValue);
  if (perValue.some((calls) => calls.length === 0)) return null;
  return allOffered(perValue.flat(), context);
}

/** Calls of offered tools anywhere in prose ("Let me search. {…}"), in order. */
function embedded(text: string, context: FormContext): Recognised {
  const calls: TextToolCall[] = [];
  let after = 0;
  for (const object of objectsIn(text).slice(0, MAX_OPENINGS)) {
    // An object inside a call already taken is part of it.
    if (object.end - object.text.length < after) continue;
    const found = allOffered(callsFromValue(parseValue(object.text)), context);
    if (found) {
      calls.push(...found);
      after = object.end;
    }
  }
  return calls.length > 0 ? calls : null;
}

export const jsonForm: ToolCallForm = {
  family: "json",
  recognise(text, context) {
    if (!text.includes("{")) return null;
    const fenced = FENCE.exec(text)?.[1];
    return (
      (fenced !== undefined ? wholeText(fenced, context) : null) ?? wholeText(text, context) ?? embedded(text, context)
    );
  },
};
