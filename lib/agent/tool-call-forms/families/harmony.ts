import { callsFromValue } from "../call-object";
import { parseValue, scanValue } from "../scan";
import type { TextToolCall, ToolCallForm } from "../types";

/**
 * gpt-oss's harmony format written into content: `<|start|>assistant<|channel|>commentary
 * to=functions.NAME <|constrain|>json<|message|>{…}<|call|>`, or the same with its special tokens
 * stripped (`commentary to=functions.NAME json{…}`), `json` sometimes glued to the name. A recipient
 * may be a title with spaces (`to=functions.Web Search <|constrain|>json`): with the special tokens
 * kept, the words up to them are the name, header words such as `json` excepted.
 */

const RECIPIENT = /to=functions\.([\w.-]+)/g;
/** What may stand between the recipient and the arguments. */
const HEADER_TAIL = /^(?:\s|<\|channel\|>|commentary|<\|constrain\|>|json|<\|message\|>)*/;
/** More words of the name before a header token (`Web Search <|constrain|>`). */
const NAME_WORDS = /^(?:[ \t]+[\w.-]+)+(?=[ \t]*<\|(?:constrain|message|channel)\|>)/;
const HEADER_WORD = /[ \t]+(?:json|commentary|code)$/;

/** The recipient's name and where it ends: the matched word, and any words that follow up to a token. */
function recipientAt(text: string, match: RegExpMatchArray): { name: string; end: number } {
  const end = (match.index ?? 0) + match[0].length;
  let words = NAME_WORDS.exec(text.slice(end, end + 200))?.[0] ?? "";
  while (HEADER_WORD.test(words)) words = words.replace(HEADER_WORD, "");
  return { name: (match[1] as string) + words, end: end + words.length };
}

export const harmonyForm: ToolCallForm = {
  family: "harmony",
  recognise(text, context) {
    if (!text.includes("to=functions.")) return null;
    const calls: TextToolCall[] = [];
    for (const match of text.matchAll(RECIPIENT)) {
      const recipient = recipientAt(text, match);
      let name = recipient.name;
      if (!context.resolve(name) && name.endsWith("json") && context.resolve(name.slice(0, -4))) {
        name = name.slice(0, -4);
      }
      const after = recipient.end;
      const tail = HEADER_TAIL.exec(text.slice(after, after + 200))?.[0] ?? "";
      const scanned = scanValue(text, after + tail.length);
      const args = scanned ? parseValue(scanned.text) : undefined;
      if (args === undefined) continue;
      calls.push(...callsFromValue({ name, arguments: args }));
    }
    return calls;
  },
};
