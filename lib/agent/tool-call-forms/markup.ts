/**
 * The markup of tool calls and special tokens that must never reach the rendered answer: what
 * the answer gate looks for, and what is removed from any text shown to the user.
 */

/** Openings of a reply that may still turn out to be a call or thinking: the gate holds them back. */
export const CALL_MARKERS = [
  "<tool_call>",
  "<function=",
  "<tool_code>",
  "```tool_code",
  "[TOOL_CALLS]",
  "[TOOL_REQUEST]",
  "<|python_tag|>",
  "<|python_start|>",
  "<|start|>",
  "<|channel|>",
  "<think>",
  "</think>",
] as const;

/** Words a harmony reply begins with once its special tokens were stripped. */
export const HARMONY_WORDS = ["analysis", "commentary", "assistantcommentary", "assistantfinal"] as const;

/** Special tokens and call tags, wherever they stand in shown text. */
const TOKEN =
  /<\|[a-z_]{1,30}\|>|\[(?:TOOL_CALLS|ARGS|CALL_ID|TOOL_REQUEST|END_TOOL_REQUEST|TOOL_RESULTS|\/TOOL_RESULTS|INST|\/INST)\]|<\/?(?:tool_call|tool_code|think|tool_response)>/g;

/** Text with every special token and call tag removed (what a user may see). */
export function removeSpecialTokens(text: string): string {
  return text.replace(TOKEN, "");
}

/** Longest token `TOKEN` matches, for holding back a stream's tail that may be one. */
export const MAX_TOKEN_LENGTH = 34;

/**
 * Where a possibly incomplete token begins at the end of `text` (an opening `<` or `[` not yet
 * closed), or -1: a stream holds back from there until the next delta tells.
 */
export function partialTokenStart(text: string): number {
  const from = Math.max(0, text.length - MAX_TOKEN_LENGTH);
  for (let i = text.length - 1; i >= from; i--) {
    const char = text[i];
    if (char === ">" || char === "]") return -1;
    if (char === "<" || char === "[") return i;
  }
  return -1;
}
