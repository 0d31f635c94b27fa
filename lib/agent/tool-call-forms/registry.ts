import { harmonyForm } from "./families/harmony";
import { jsonForm } from "./families/json";
import { mistralForm } from "./families/mistral";
import { pythonCallForm } from "./families/python-call";
import { pythonTagForm } from "./families/python-tag";
import { toolCallTagForm } from "./families/tool-call-tag";
import { toolCodeForm } from "./families/tool-code";
import { toolRequestForm } from "./families/tool-request";
import { resolveToolName } from "./tool-names";
import type { FormContext, TextToolCall, ToolCallForm } from "./types";

/**
 * The registry of tool-call forms (docs/engine.md, "Tool calls written as text"). Forms
 * with an unmistakable marker come first; the two that need an offered tool name to count (bare
 * JSON, Python-call style) come last. The first form that recognises the reply decides it.
 */
export const TOOL_CALL_FORMS: readonly ToolCallForm[] = [
  toolRequestForm,
  mistralForm,
  harmonyForm,
  pythonTagForm,
  toolCallTagForm,
  toolCodeForm,
  jsonForm,
  pythonCallForm,
];

export interface Recognition {
  /** The family that recognised the reply; null when it is prose. */
  family: string | null;
  /** The calls, names as written; empty with a family when the markup holds nothing runnable. */
  calls: TextToolCall[];
}

const PROSE: Recognition = { family: null, calls: [] };

/** Thinking blocks are reasoning, not calls: a call inside one is never run. */
export function withoutThinking(text: string): string {
  const closed = text.replace(/<think>[\s\S]*?<\/think>/g, "");
  const open = closed.indexOf("<think>");
  const unopened = open === -1 ? closed : closed.slice(0, open);
  const close = unopened.lastIndexOf("</think>");
  return close === -1 ? unopened : unopened.slice(close + "</think>".length);
}

export function recogniseToolCalls(
  content: string,
  toolNames: readonly string[],
  { maxChars }: { maxChars: number },
): Recognition {
  // Over the cap a reply is prose: recognition runs on every reply and must stay bounded.
  if (content.length > maxChars) return PROSE;
  const text = withoutThinking(content);
  if (!text.trim()) return PROSE;
  const context: FormContext = { toolNames, resolve: (name) => resolveToolName(name, toolNames) };
  for (const form of TOOL_CALL_FORMS) {
    const calls = form.recognise(text, context);
    if (calls) return { family: form.family, calls };
  }
  return PROSE;
}
