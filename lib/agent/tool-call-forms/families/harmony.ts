import { callsFromValue } from "../call-object";
import { parseValue, scanValue } from "../scan";
import type { TextToolCall, ToolCallForm } from "../types";

/**
 * gpt-oss's harmony format written into content: `<|start|>assistant<|channel|>commentary
 * to=functions.NAME <|constrain|>json<|message|>{…}<|call|>`, or the same with its special tokens
 * stripped (`commentary to=functions.NAME json{…}`), `json` sometimes glued to the name.
 */

const RECIPIENT = /to=functions\.([\w.-]+)/g;
/** What may stand between the recipient and the arguments. */
const HEADER_TAIL = /^(?:\s|<\|channel\|>|commentary|<\|constrain\|>|json|<\|message\|>)*/;

export const harmonyForm: ToolCallForm = {
  family: "harmony",
  recognise(text, context) {
    if (!text.includes("to=functions.")) return null;
    const calls: TextToolCall[] = [];
    for (const match of text.matchAll(RECIPIENT)) {
      let name = match[1] as string;
      if (!context.resolve(name) && name.endsWith("json") && context.resolve(name.slice(0, -4))) {
        name = name.slice(0, -4);
      }
      const after = (match.index ?? 0) + match[0].length;
      const tail = HEADER_TAIL.exec(text.slice(after, after + 200))?.[0] ?? "";
      const scanned = scanValue(text, after + tail.length);
      const args = scanned ? parseValue(scanned.text) : undefined;
      if (args === undefined) continue;
      calls.push(...callsFromValue({ name, arguments: args }));
    }
    return calls;
  },
};
