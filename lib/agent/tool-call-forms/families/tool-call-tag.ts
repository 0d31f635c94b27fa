import { callsFromValue } from "../call-object";
import { valuesInRow } from "../scan";
import type { TextToolCall, ToolCallForm } from "../types";

/**
 * `<tool_call>…</tool_call>` (Hermes, Qwen 2.5/3): JSON inside, or Qwen3-Coder's XML
 * `<function=NAME><parameter=KEY>VALUE</parameter></function>`, also with its closing tags (or
 * its opening `<tool_call>`) missing. Explicit markup: a block that holds no runnable call is
 * still a call attempt (an unrunnable one), never an answer.
 */

const OPEN = "<tool_call>";
const CLOSE = "</tool_call>";
const FUNCTION = /<function=([^>\n]+)>/g;
const PARAMETER = /<parameter=([^>\n]+)>/g;

/** Cuts a parameter's value at whichever comes first of its closing tag or the next tag of the call. */
function valueEnd(block: string, from: number): { end: number; next: number } {
  const candidates = ["</parameter>", "<parameter=", "</function>", CLOSE].map((tag) => ({
    tag,
    at: block.indexOf(tag, from),
  }));
  const first = candidates.filter((c) => c.at !== -1).sort((a, b) => a.at - b.at)[0];
  if (!first) return { end: block.length, next: block.length };
  return { end: first.at, next: first.tag === "</parameter>" ? first.at + first.tag.length : first.at };
}

/** One parameter value: the newline Qwen3-Coder puts around it is not part of it. */
const trimValue = (value: string) => value.replace(/^\r?\n/, "").replace(/\r?\n$/, "");

function xmlCalls(block: string): TextToolCall[] {
  const calls: TextToolCall[] = [];
  const functions = [...block.matchAll(FUNCTION)];
  functions.forEach((match, index) => {
    const start = (match.index ?? 0) + match[0].length;
    const stop = functions[index + 1]?.index ?? block.length;
    const body = block.slice(start, stop);
    const args: Record<string, unknown> = {};
    for (const parameter of body.matchAll(PARAMETER)) {
      const from = (parameter.index ?? 0) + parameter[0].length;
      args[(parameter[1] as string).trim()] = trimValue(body.slice(from, valueEnd(body, from).end));
    }
    // Llama 4's variant writes the arguments as JSON: `<function=NAME>{…}</function>`.
    const json =
      Object.keys(args).length === 0
        ? callsFromValue({ name: "_", arguments: body.split("</function>")[0]?.trim() })
        : [];
    calls.push({ name: (match[1] as string).trim(), arguments: json[0]?.arguments ?? args });
  });
  return calls;
}

function jsonCalls(block: string): TextToolCall[] {
  return (valuesInRow(block.trim()) ?? []).flatMap(callsFromValue);
}

export const toolCallTagForm: ToolCallForm = {
  family: "tool_call",
  recognise(text) {
    const tagged = text.includes(OPEN) || text.includes(CLOSE);
    if (!tagged && !text.includes("<function=")) return null;
    if (text.includes("<function=")) return xmlCalls(text);
    const calls: TextToolCall[] = [];
    for (const part of text.split(OPEN).slice(text.includes(OPEN) ? 1 : 0)) {
      calls.push(...jsonCalls(part.split(CLOSE)[0] ?? ""));
    }
    return calls;
  },
};
