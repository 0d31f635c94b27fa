import type { ChatMessage, ChatResult, LLM, Usage } from "@/lib/llm/types";
import { addUsage, emptyUsage } from "@/lib/llm/types";
import { type PromptLanguage, prompt } from "@/lib/prompts";
import { type CompactionEvent, type CompactionHint, ContextGuard, type MessageCut } from "./context-guard";
import { extractJson } from "./extract-json";

/**
 * The single entry point for JSON from an LLM: native function calling, then JSON mode
 * with the schema as the output's (one retry), then plain text with extractJson / regexFallback (one
 * retry), each level only when the model's abilities allow it. At most five calls. Every call goes
 * through the context guard with the schema it carries: older messages are summarised with `hint`,
 * the request itself (the last user message) is kept, cut when it alone is too long, and `onCut`
 * hears of the cut so the caller can say so.
 */

export type StructuredLevel = "native" | "json_mode" | "plain" | "default";

export interface StructuredCallOptions<T> {
  llm: LLM;
  messages: ChatMessage[];
  /** JSON schema of the object wanted. */
  schema: Record<string, unknown>;
  /** Name and description of the level-1 tool that carries the object. */
  name: string;
  description: string;
  /** Turns the raw object into a domain value; null or a throw drops to the next level. */
  parseFn?: (raw: Record<string, unknown>) => T | null;
  /** Last resort on plain text, when no JSON object can be found in it. */
  regexFallback?: (text: string) => Record<string, unknown> | null;
  /** Makes total failure acceptable; without it a StructuredCallError is thrown. */
  defaultValue?: T;
  language: PromptLanguage;
  signal?: AbortSignal;
  /** How older messages are summarised when the call does not fit; "general" by default. */
  hint?: CompactionHint;
  /** The request had to be cut to fit the model's context. */
  onCut?: (cut: MessageCut) => void;
  onCompact?: (event: CompactionEvent) => void;
}

export interface StructuredCallResult<T> {
  value: T;
  raw: Record<string, unknown> | null;
  level: StructuredLevel;
  llmCalls: number;
  usage: Usage;
}

export class StructuredCallError extends Error {
  constructor(
    message: string,
    readonly llmCalls: number,
    readonly usage: Usage,
  ) {
    super(message);
    this.name = "StructuredCallError";
  }
}

export async function structuredLlmCall<T = Record<string, unknown>>(
  options: StructuredCallOptions<T>,
): Promise<StructuredCallResult<T>> {
  const { llm, messages, signal } = options;
  let llmCalls = 0;
  let usage = emptyUsage();
  const failures: string[] = [];

  const guard = new ContextGuard({ llm, language: options.language, onCompact: options.onCompact });
  const request = messages.findLast((message) => message.role === "user");
  let reportedCut = false;
  const call = async (history: ChatMessage[], chatOptions: Parameters<LLM["chat"]>[1] = {}): Promise<ChatResult> => {
    llmCalls++;
    // The schema travels with the messages (as the tool or as the output's schema) and takes context too.
    const extraText = JSON.stringify(chatOptions.tools ?? chatOptions.output?.schema ?? "");
    const fitted = await guard.fit(history, new Set(request ? [request] : []), {
      hint: options.hint ?? "general",
      signal,
      extraText,
      onCut: (cut) => {
        if (reportedCut || cut.original !== request) return;
        reportedCut = true;
        options.onCut?.(cut);
      },
    });
    const result = await llm.chat(fitted, { ...chatOptions, signal });
    guard.observe(fitted, result.usage.inputTokens, extraText);
    usage = addUsage(usage, result.usage);
    return result;
  };

  const accept = (
    raw: Record<string, unknown> | null | undefined,
  ): { raw: Record<string, unknown>; value: T } | null => {
    if (!raw) return null;
    try {
      const value = options.parseFn ? options.parseFn(raw) : (raw as T);
      return value === null || value === undefined ? null : { raw, value };
    } catch {
      return null;
    }
  };

  /** Runs one level; LLM errors other than Stop count as that level failing. */
  const attempt = async (
    level: StructuredLevel,
    run: () => Promise<{ raw: Record<string, unknown>; value: T } | null>,
  ) => {
    try {
      const accepted = await run();
      if (accepted) return { ...accepted, level, llmCalls, usage };
      failures.push(`${level}: no usable object`);
    } catch (error) {
      if (signal?.aborted) throw error;
      failures.push(`${level}: ${error instanceof Error ? error.message : String(error)}`);
    }
    return null;
  };

  const withRetry = async (
    history: ChatMessage[],
    chatOptions: Parameters<LLM["chat"]>[1],
    fromText: (t: string) => Record<string, unknown> | null | undefined,
  ) => {
    const first = await call(history, chatOptions);
    const accepted = accept(fromText(first.content));
    if (accepted) return accepted;
    const retry = await call(
      [
        ...history,
        { role: "assistant", content: first.content },
        { role: "user", content: prompt(options.language, "reformat") },
      ],
      chatOptions,
    );
    return accept(fromText(retry.content));
  };

  if (llm.abilities.tool_call) {
    const result = await attempt("native", async () => {
      const reply = await call(messages, {
        tools: [{ name: options.name, description: options.description, parameters: options.schema }],
      });
      const toolCall = reply.toolCalls.find((c) => c.name === options.name) ?? reply.toolCalls[0];
      // Ollama cannot force a tool call: a plain reply falls through to the next level.
      return accept(toolCall?.arguments);
    });
    if (result) return result;
  }
  if (llm.abilities.json_mode) {
    const result = await attempt("json_mode", () =>
      withRetry(messages, { output: { type: "json", schema: options.schema } }, extractJson),
    );
    if (result) return result;
  }
  const plain = await attempt("plain", () =>
    withRetry(messages, {}, (text) => extractJson(text) ?? options.regexFallback?.(text) ?? null),
  );
  if (plain) return plain;

  if (options.defaultValue !== undefined) {
    return { value: options.defaultValue, raw: null, level: "default", llmCalls, usage };
  }
  throw new StructuredCallError(
    `No valid ${options.name} object after ${llmCalls} calls (${failures.join("; ")})`,
    llmCalls,
    usage,
  );
}
