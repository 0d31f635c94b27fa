import { callsFromValue } from "../call-object";
import { pythonCalls } from "../python-call";
import { valuesInRow } from "../scan";
import type { TextToolCall, ToolCallForm } from "../types";

/**
 * Gemma's `<tool_code>…</tool_code>` and ```` ```tool_code ```` fences: a Python-style call of an
 * offered tool (often wrapped in `print(…)`) or JSON. Explicit markup: anything else inside is an
 * unrunnable call, never an answer.
 */

const BLOCK = /<tool_code>([\s\S]*?)(?:<\/tool_code>|$)|```tool_code[ \t]*\n?([\s\S]*?)(?:```|$)/g;

export const toolCodeForm: ToolCallForm = {
  family: "tool_code",
  recognise(text, context) {
    if (!text.includes("tool_code")) return null;
    const blocks = [...text.matchAll(BLOCK)];
    if (blocks.length === 0) return null;
    const calls: TextToolCall[] = [];
    for (const block of blocks) {
      const body = (block[1] ?? block[2] ?? "").trim();
      const unwrapped = /^print\(([\s\S]*)\)$/.exec(body)?.[1]?.trim() ?? body;
      const values = valuesInRow(unwrapped);
      calls.push(...(values ? values.flatMap(callsFromValue) : (pythonCalls(unwrapped, context) ?? [])));
    }
    return calls;
  },
};
