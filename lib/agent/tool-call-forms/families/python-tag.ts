import { callsFromValue } from "../call-object";
import { pythonCalls } from "../python-call";
import { valuesInRow } from "../scan";
import type { FormContext, TextToolCall, ToolCallForm } from "../types";

/**
 * Llama 3.1/3.2's `<|python_tag|>` followed by JSON calls (several joined by `;`) or a built-in
 * `tool.call(k=v)`, and Llama 4's `<|python_start|>…<|python_end|>`. Explicit markup: what follows
 * the tag and is not a call is an unrunnable call, not an answer.
 */

const TAGS = ["<|python_tag|>", "<|python_start|>"];
const SPECIAL_TOKEN = /<\|[a-z_]+\|>/g;

function callsIn(body: string, context: FormContext): TextToolCall[] {
  const text = body.replace(SPECIAL_TOKEN, " ").trim();
  const values = valuesInRow(text);
  if (values) return values.flatMap(callsFromValue);
  return pythonCalls(text.replace(/^([A-Za-z_]\w*)\.call\(/, "$1("), context) ?? [];
}

export const pythonTagForm: ToolCallForm = {
  family: "python_tag",
  recognise(text, context) {
    const tag = TAGS.find((candidate) => text.includes(candidate));
    if (!tag) return null;
    const body = text.slice(text.indexOf(tag) + tag.length).split("<|python_end|>")[0] ?? "";
    return callsIn(body, context);
  },
};
