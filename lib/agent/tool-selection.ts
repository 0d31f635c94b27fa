import type { LLM, ToolSpec, Usage } from "@/lib/llm/types";
import { emptyUsage } from "@/lib/llm/types";
import { type PromptLanguage, prompt } from "@/lib/prompts";
import type { StructuredRecord } from "@/lib/protocol/run-events";
import type { MessageCut } from "./context-guard";
import { structuredLlmCall } from "./structured-call";

/**
 * Tool selection: with more than TOOL_SELECTION_THRESHOLD tools, one structured call
 * over a compact catalogue (name + one line, ~80 characters, no schemas) picks at most
 * TOOL_SELECTION_MAX. Any failure keeps the full set.
 */

const CATALOGUE_LINE = 80;

export function catalogue(tools: ToolSpec[]): string {
  return tools
    .map((tool) => {
      const line = `- ${tool.name}: ${tool.description.split("\n")[0]?.trim() ?? ""}`;
      return line.length > CATALOGUE_LINE ? `${line.slice(0, CATALOGUE_LINE - 1)}…` : line;
    })
    .join("\n");
}

export interface ToolSelection {
  /** null: keep every tool. */
  selected: string[] | null;
  usage: Usage;
  /** How the structured call went; absent when it failed outright. */
  structured?: StructuredRecord;
}

const schema = {
  type: "object",
  properties: { tools: { type: "array", items: { type: "string" } } },
  required: ["tools"],
};

export async function selectTools(
  llm: LLM,
  tools: ToolSpec[],
  {
    question,
    max,
    language,
    signal,
    onCut,
  }: {
    question: string;
    max: number;
    language: PromptLanguage;
    signal?: AbortSignal;
    /** The selection's request had to be cut to fit the model's context. */
    onCut?: (cut: MessageCut) => void;
  },
): Promise<ToolSelection> {
  const known = new Set(tools.map((tool) => tool.name));
  try {
    const result = await structuredLlmCall<string[] | null>({
      llm,
      language,
      signal,
      onCut,
      name: "select_tools",
      description: "Choose the tools relevant to the request",
      schema,
      messages: [
        {
          role: "user",
          content: prompt(language, "tool_selection", { max: String(max), catalogue: catalogue(tools), question }),
        },
      ],
      parseFn: (raw) => {
        if (!Array.isArray(raw.tools)) return null;
        const names = [
          ...new Set(raw.tools.filter((name): name is string => typeof name === "string" && known.has(name))),
        ];
        return names.length > 0 ? names.slice(0, max) : null;
      },
      defaultValue: null,
    });
    return { selected: result.value, usage: result.usage, structured: { level: result.level, calls: result.llmCalls } };
  } catch (error) {
    if (signal?.aborted) throw error;
    return { selected: null, usage: emptyUsage() };
  }
}
