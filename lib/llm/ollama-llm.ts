import { generateText, jsonSchema, type ModelMessage, streamText, type ToolSet, tool } from "ai";
import { createOllama } from "ollama-ai-provider-v2";
import { AppError, isAbortError } from "@/lib/errors";
import { createOllamaFetch } from "./ollama-fetch";
import type { GenerationStats } from "./ollama-stream";
import type {
  Abilities,
  ChatMessage,
  ChatOptions,
  ChatResult,
  LLM,
  ReplyPart,
  StreamPart,
  ToolCall,
  Usage,
} from "./types";

/** The `LLM` on `ai` 6 + `ollama-ai-provider-v2`, with the wire repaired by `createOllamaFetch`. */

export interface OllamaLLMOptions {
  baseUrl: string;
  model: string;
  abilities: Abilities;
  /** The model's own context length, if Ollama reported it. */
  modelContextLength: number | null;
  numCtx: number;
  /** Ask thinking models to think (sent as `think: true` only when the model can). */
  think?: boolean;
  /** Sampling options of every call (a chat's own settings); a call's own `temperature` wins. */
  sampling?: { temperature?: number; top_p?: number; seed?: number };
  /** Upper bound on one request, so a hung model cannot hold a run forever. */
  timeoutMs?: number;
  /** Longest reply line taken from Ollama (OLLAMA_MAX_LINE_MB); unset = no limit. */
  maxLineBytes?: number;
  fetchImpl?: typeof fetch;
}

export function toModelMessages(messages: ChatMessage[]): ModelMessage[] {
  return messages.map((message): ModelMessage => {
    switch (message.role) {
      case "system":
        return { role: "system", content: message.content };
      case "user":
        if (!message.images?.length) return { role: "user", content: message.content };
        return {
          role: "user",
          content: [
            { type: "text", text: message.content },
            ...message.images.map((data) => ({ type: "file" as const, data, mediaType: "image/jpeg" })),
          ],
        };
      case "assistant":
        return {
          role: "assistant",
          content: [
            ...(message.reasoning ? [{ type: "reasoning" as const, text: message.reasoning }] : []),
            { type: "text" as const, text: message.content },
            ...(message.toolCalls ?? []).map((call) => ({
              type: "tool-call" as const,
              toolCallId: call.id,
              toolName: call.name,
              input: call.arguments,
            })),
          ],
        };
      default:
        return {
          role: "tool",
          content: [
            {
              type: "tool-result",
              toolCallId: message.toolCallId,
              toolName: message.toolName,
              output: { type: "text", value: message.content },
            },
          ],
        };
    }
  });
}

function toToolSet(tools: ChatOptions["tools"]): ToolSet | undefined {
  if (!tools?.length) return undefined;
  // No `execute` and no validation: the engine runs and validates tools itself, so a small model's
  // wrong arguments reach it as an error observation instead of an SDK exception.
  return Object.fromEntries(
    tools.map((spec) => [
      spec.name,
      tool({
        description: spec.description,
        inputSchema: jsonSchema(spec.parameters as Parameters<typeof jsonSchema>[0]),
      }),
    ]),
  );
}

function toArguments(input: unknown): Record<string, unknown> {
  if (typeof input === "string") {
    try {
      return toArguments(JSON.parse(input));
    } catch {
      return {};
    }
  }
  return input && typeof input === "object" && !Array.isArray(input) ? (input as Record<string, unknown>) : {};
}

function toUsage(usage: { inputTokens?: number; outputTokens?: number } | undefined): Usage {
  const inputTokens = usage?.inputTokens ?? 0;
  const outputTokens = usage?.outputTokens ?? 0;
  return { inputTokens, outputTokens, totalTokens: inputTokens + outputTokens };
}

/** Errors from the SDK are re-thrown as the AppError our fetch raised, or wrapped in one. */
function normalizeError(error: unknown, timeoutMs?: number): unknown {
  if (error instanceof AppError || isAbortError(error)) return error;
  if (
    (error as { name?: string })?.name === "TimeoutError" ||
    (error as { cause?: { name?: string } })?.cause?.name === "TimeoutError"
  ) {
    return new AppError(
      "upstream:ollama_timeout",
      `Ollama did not finish within ${Math.round((timeoutMs ?? 0) / 1000)} s.`,
      {
        retryable: true,
      },
    );
  }
  const cause = (error as { cause?: unknown })?.cause;
  if (cause instanceof AppError) return cause;
  // undici ends a response body whose connection broke with a bare "terminated".
  if (error instanceof TypeError && error.message === "terminated") {
    return new AppError("upstream:ollama_connection", "The connection to Ollama broke before the reply was finished.", {
      retryable: true,
      cause: error,
    });
  }
  const message = error instanceof Error ? error.message : String(error);
  return new AppError("upstream:ollama", `Ollama error: ${message}`, { retryable: true, cause: error });
}

export function createOllamaLLM(options: OllamaLLMOptions): LLM {
  const contextLength = Math.min(options.numCtx, options.modelContextLength ?? options.numCtx);
  const defaultThink = options.abilities.thinking && (options.think ?? true);

  const modelFor = (
    format?: ChatOptions["format"],
    onStreamError?: (error: AppError) => void,
    think: boolean = defaultThink,
    onDone?: (stats: GenerationStats) => void,
  ) =>
    createOllama({
      baseURL: `${options.baseUrl.replace(/\/+$/, "")}/api`,
      fetch: createOllamaFetch({
        baseUrl: options.baseUrl,
        model: options.model,
        patch: { numCtx: contextLength, think, format },
        onStreamError,
        onDone,
        maxLineBytes: options.maxLineBytes,
        fetchImpl: options.fetchImpl,
      }),
    })(options.model);

  /** The caller's signal (Stop) combined with the request timeout. */
  const withTimeout = (signal?: AbortSignal) =>
    options.timeoutMs ? AbortSignal.any([AbortSignal.timeout(options.timeoutMs), ...(signal ? [signal] : [])]) : signal;

  const providerOptions = (temperature?: number, think: boolean = defaultThink) => ({
    ollama: {
      think,
      options: { num_ctx: contextLength, ...options.sampling, ...(temperature === undefined ? {} : { temperature }) },
    },
  });

  /** One streamed reply: text and thinking as they arrive, each tool call whole, then usage. */
  async function* streamReply(messages: ChatMessage[], chatOptions: ChatOptions = {}): AsyncIterable<ReplyPart> {
    // Ollama's mid-stream error line, reported by our fetch; it wins over whatever the SDK makes of it.
    let streamFailure: AppError | undefined;
    let generation: GenerationStats | undefined;
    const think = defaultThink && chatOptions.think !== false;
    const result = streamText({
      model: modelFor(
        chatOptions.format,
        (error) => {
          streamFailure = error;
        },
        think,
        (stats) => {
          generation = stats;
        },
      ),
      messages: toModelMessages(messages),
      tools: toToolSet(chatOptions.tools),
      abortSignal: withTimeout(chatOptions.signal),
      maxRetries: 0,
      allowSystemInMessages: true,
      providerOptions: providerOptions(chatOptions.temperature, think),
      onError: () => {}, // errors are re-thrown from the loop below
    });
    try {
      for await (const part of result.fullStream) {
        switch (part.type) {
          case "text-delta":
            if (part.text) yield { type: "text", text: part.text };
            break;
          case "reasoning-delta":
            if (part.text) yield { type: "reasoning", text: part.text };
            break;
          case "tool-call":
            yield {
              type: "tool-call",
              call: { id: part.toolCallId, name: part.toolName, arguments: toArguments(part.input) },
            };
            break;
          case "error":
            throw streamFailure ?? normalizeError(part.error, options.timeoutMs);
          case "abort":
            if (chatOptions.signal?.aborted) throw new DOMException("The run was stopped.", "AbortError");
            throw normalizeError(new DOMException("timed out", "TimeoutError"), options.timeoutMs);
          case "finish":
            if (streamFailure) throw streamFailure;
            yield {
              type: "finish",
              usage: {
                ...toUsage(part.totalUsage),
                ...(generation ? { generationMs: generation.evalDurationNs / 1e6 } : {}),
              },
              finishReason: part.finishReason,
            };
            break;
        }
      }
    } catch (error) {
      // A broken connection surfaces from the iteration itself, not as an error part.
      throw normalizeError(error, options.timeoutMs);
    }
    if (streamFailure) throw streamFailure;
  }

  return {
    model: options.model,
    abilities: options.abilities,
    contextLength,

    async chat(messages, chatOptions = {}): Promise<ChatResult> {
      const think = defaultThink && chatOptions.think !== false;
      try {
        const result = await generateText({
          model: modelFor(chatOptions.format, undefined, think),
          messages: toModelMessages(messages),
          tools: toToolSet(chatOptions.tools),
          abortSignal: withTimeout(chatOptions.signal),
          maxRetries: 0,
          // Our system messages are ours (prompts/*.json), not user input.
          allowSystemInMessages: true,
          providerOptions: providerOptions(chatOptions.temperature, think),
        });
        const toolCalls: ToolCall[] = result.toolCalls.map((call) => ({
          id: call.toolCallId,
          name: call.toolName,
          arguments: toArguments(call.input),
        }));
        return { content: result.text, toolCalls, reasoning: result.reasoningText ?? "", usage: toUsage(result.usage) };
      } catch (error) {
        throw normalizeError(error, options.timeoutMs);
      }
    },

    streamReply,

    async *streamChat(messages, streamOptions = {}): AsyncIterable<StreamPart> {
      for await (const part of streamReply(messages, streamOptions)) if (part.type !== "tool-call") yield part;
    },
  };
}
