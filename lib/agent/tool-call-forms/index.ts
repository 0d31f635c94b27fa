/** Tool calls written as text, thinking written into content, and markup kept off the screen. */
export { callFromObject } from "./call-object";
export { CALL_MARKERS, HARMONY_WORDS, removeSpecialTokens } from "./markup";
export { type Recognition, recogniseToolCalls, TOOL_CALL_FORMS, withoutThinking } from "./registry";
export { ShownTextFilter, shownAnswer, shownStream } from "./shown-text";
export { ThinkingSplitter, withThinkingSplit } from "./thinking-markup";
export { cleanToolName, resolveToolName } from "./tool-names";
export type { TextToolCall, ToolCallForm } from "./types";
