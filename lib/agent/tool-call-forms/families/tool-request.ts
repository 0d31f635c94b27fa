import { callsFromValue } from "../call-object";
import { valuesInRow } from "../scan";
import type { TextToolCall, ToolCallForm } from "../types";

/** LM Studio's `[TOOL_REQUEST]{"name": …, "arguments": {…}}[END_TOOL_REQUEST]`, end marker optional. */

const OPEN = "[TOOL_REQUEST]";
const CLOSE = "[END_TOOL_REQUEST]";

export const toolRequestForm: ToolCallForm = {
  family: "tool_request",
  recognise(text) {
    if (!text.includes(OPEN)) return null;
    const calls: TextToolCall[] = [];
    for (const part of text.split(OPEN).slice(1)) {
      calls.push(...(valuesInRow((part.split(CLOSE)[0] ?? "").trim()) ?? []).flatMap(callsFromValue));
    }
    return calls;
  },
};
