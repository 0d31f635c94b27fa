import { createOpenAICompatible, type MetadataExtractor } from "@ai-sdk/openai-compatible";
import { generateText, type LanguageModelUsage, type OutputInterface, streamText } from "ai";
import type { OpenAICompatibleServer } from "@/lib/env-config";
import { parseToolArguments } from "@/lib/util/tool-arguments";
import type { SamplingOptions } from "../ollama-request";
import type {
  Abilities,
  ChatMessage,
  ChatOptions,
  ChatResult,
  LLM,
  OutputFormat,
  ReplyPart,
  StreamPart,
  ToolCall,
  Usage,
} from "../types";
import { connectionBrokenError, openAIFailure, timeoutError } from "./openai-errors";
import { toModelMessages, toToolSet } from "./openai-messages";

/**
 * The `LLM` on an OpenAI-compatible server (llama-server, vLLM, …) through the AI SDK
 * (docs/architecture.md, "OpenAI-compatible servers"): text and reasoning streamed, tool calls whole
 * (the tools go without `execute`, so the SDK hands the calls back to our engine), JSON output as
 * `response_format`, usage, Stop and a timeout as the request's abort. The SDK retries nothing.
 */

export interface OpenAICompatibleLLMOptions {
  server: OpenAICompatibleServer;
  /** The server's own name for the model. */
  model: string;
  abilities: Abilities;
  contextLength: number;
  /** false: every call asks the model not to think (a chat's setting). */
  think?: boolean;
  sampling?: SamplingOptions;
  /** Upper bound on the whole call, reply included. */
  timeoutMs?: number;
  /** Longest reply, in tokens (the ability probes'); unset, the server's own limit. */
  maxOutputTokens?: number;
}

/** The name the app knows the model by: `<model>@<label>`. */
export const modelNameOn = (model: string, label: string) => `${model}@${label}`;

/** The SDK reads a provider's request extras under its name up to the first `.`. */
const providerKey = (label: string) => label.split(".")[0]?.trim() ?? label;

/** llama-server's `timings.predicted_ms`: how long the output tokens took, for the run's tokens per second. */
function predictedMs(body: unknown): number | undefined {
  const value = (body as { timings?: { predicted_ms?: unknown } } | null)?.timings?.predicted_ms;
  return typeof value === "number" && value >= 0 ? value : undefined;
}

function timingsExtractor(key: string): MetadataExtractor {
  const metadata = (ms: number | undefined) => (ms === undefined ? undefined : { [key]: { predictedMs: ms } });
  return {
    extractMetadata: async ({ parsedBody }) => metadata(predictedMs(parsedBody)),
    createStreamExtractor: () => {
      let ms: number | undefined;
      return {
        processChunk: (chunk) => {
          ms = predictedMs(chunk) ?? ms;
        },
        buildMetadata: () => metadata(ms),
      };
    },
  };
}

/** JSON output whose text is handed back as written: our own readers (extractJson, parseFn) judge it. */
function jsonOutput(output: OutputFormat): OutputInterface<string, undefined, never> {
  return {
    name: "json",
    responseFormat: Promise.resolve({
      type: "json",
      ...(output.schema ? { schema: output.schema as never, name: "response" } : {}),
    }),
    parseCompleteOutput: async ({ text }) => text,
    parsePartialOutput: async () => undefined,
    createElementStreamTransform: () => undefined,
  };
}

function usageOf(usage: LanguageModelUsage | undefined, generationMs: number | undefined): Usage {
  const inputTokens = usage?.inputTokens ?? 0;
  const outputTokens = usage?.outputTokens ?? 0;
  return {
    inputTokens,
    outputTokens,
    totalTokens: usage?.totalTokens ?? inputTokens + outputTokens,
    ...(generationMs === undefined ? {} : { generationMs }),
  };
}

function toolCallOf(call: { toolCallId: string; toolName: string; input: unknown }): ToolCall {
  const parsed = parseToolArguments(call.input);
  return { id: call.toolCallId, name: call.toolName, arguments: parsed.ok ? parsed.value : {} };
}

/** The SDK's finish reasons in the words of the Ollama adapter (`stop`, `length`, `tool-calls`, `other`). */
function finishReasonOf(reason: string, calledTools: boolean): string {
  if (calledTools) return "tool-calls";
  return reason === "stop" || reason === "length" ? reason : "other";
}

export function createOpenAICompatibleLLM(options: OpenAICompatibleLLMOptions): LLM {
  const { server, model } = options;
  const label = server.label;
  const key = providerKey(label);
  const provider = createOpenAICompatible({
    name: label,
    baseURL: server.baseUrl,
    ...(server.apiKey ? { apiKey: server.apiKey } : {}),
    includeUsage: true,
    // A schema goes as `json_schema` (llama-server and vLLM constrain decoding to it).
    supportsStructuredOutputs: true,
    metadataExtractor: timingsExtractor(key),
    // A redirect would carry the key elsewhere: refused, as for the model list.
    fetch: (input, init) => fetch(input, { ...init, redirect: "error" }),
  });
  const languageModel = provider.chatModel(model);

  /** What every call sends, from the chat's settings and this call's asks. */
  const callSettings = (messages: ChatMessage[], chatOptions: ChatOptions, signal: AbortSignal) => {
    const thinkingOff =
      chatOptions.thinking === false || (chatOptions.thinking === undefined && options.think === false);
    const sampling = options.sampling ?? {};
    const temperature = chatOptions.temperature ?? sampling.temperature;
    return {
      model: languageModel,
      messages: toModelMessages(messages),
      // Our system prompts are ours (the engine's), not a user's: no warning for them.
      allowSystemInMessages: true,
      tools: toToolSet(chatOptions.tools),
      // A model without JSON mode would be refused the response_format: it gets the prompt alone,
      // which asks for JSON too, and the engine reads the object out of its text.
      ...(chatOptions.output && options.abilities.json_mode ? { output: jsonOutput(chatOptions.output) } : {}),
      ...(temperature === undefined ? {} : { temperature }),
      ...(sampling.top_p === undefined ? {} : { topP: sampling.top_p }),
      ...(sampling.seed === undefined ? {} : { seed: sampling.seed }),
      ...(options.maxOutputTokens === undefined ? {} : { maxOutputTokens: options.maxOutputTokens }),
      providerOptions: {
        [key]: {
          // Strict schemas are OpenAI's own rule (every field required); these servers take any.
          strictJsonSchema: false,
          // llama-server and vLLM pass these to the chat template (Qwen3, DeepSeek-R1 distills…).
          ...(thinkingOff ? { chat_template_kwargs: { enable_thinking: false } } : {}),
        },
      },
      abortSignal: signal,
      maxRetries: 0,
    };
  };

  /** The caller's signal and the timeout, and what either ending the call means. */
  const guard = (caller: AbortSignal | undefined) => {
    const timeout = options.timeoutMs ? AbortSignal.timeout(options.timeoutMs) : undefined;
    const signals = [caller, timeout].filter((signal): signal is AbortSignal => Boolean(signal));
    const signal = signals.length ? AbortSignal.any(signals) : new AbortController().signal;
    const failure = (error: unknown): unknown => {
      if (caller?.aborted) return new DOMException("The run was stopped.", "AbortError");
      if (timeout?.aborted) return timeoutError(label, Math.round((options.timeoutMs ?? 0) / 1000));
      return openAIFailure(label, model, error);
    };
    return { signal, failure };
  };

  async function* streamReply(messages: ChatMessage[], chatOptions: ChatOptions = {}): AsyncIterable<ReplyPart> {
    const { signal, failure } = guard(chatOptions.signal);
    let error: unknown;
    try {
      const result = streamText({
        ...callSettings(messages, chatOptions, signal),
        // Errors come to us as `error` parts, not to the console.
        onError: () => {},
      });
      let calledTools = false;
      let generationMs: number | undefined;
      for await (const part of result.fullStream) {
        switch (part.type) {
          case "reasoning-delta":
            if (part.text) yield { type: "reasoning", text: part.text };
            break;
          case "text-delta":
            if (part.text) yield { type: "text", text: part.text };
            break;
          case "tool-call":
            calledTools = true;
            yield { type: "tool-call", call: toolCallOf(part) };
            break;
          case "finish-step":
            generationMs = (part.providerMetadata?.[key] as { predictedMs?: number } | undefined)?.predictedMs;
            break;
          case "error":
            error ??= part.error;
            break;
          case "abort":
            error ??= new DOMException("aborted", "AbortError");
            break;
          case "finish":
            if (error) break;
            // A reply that stopped without saying why was cut (both servers always say).
            if (part.rawFinishReason === undefined) throw connectionBrokenError(label);
            yield {
              type: "finish",
              usage: usageOf(part.totalUsage, generationMs),
              finishReason: finishReasonOf(part.finishReason, calledTools),
            };
            break;
        }
        if (error) break;
      }
      if (error) throw error;
    } catch (thrown) {
      throw failure(thrown);
    }
  }

  return {
    model: modelNameOn(model, label),
    abilities: options.abilities,
    contextLength: options.contextLength,

    async chat(messages, chatOptions = {}): Promise<ChatResult> {
      const { signal, failure } = guard(chatOptions.signal);
      try {
        const result = await generateText(callSettings(messages, chatOptions, signal));
        const generationMs = (result.providerMetadata?.[key] as { predictedMs?: number } | undefined)?.predictedMs;
        return {
          content: result.text,
          reasoning: result.reasoningText ?? "",
          toolCalls: result.toolCalls.map(toolCallOf),
          usage: usageOf(result.totalUsage, generationMs),
        };
      } catch (error) {
        throw failure(error);
      }
    },

    streamReply,

    async *streamChat(messages, streamOptions = {}): AsyncIterable<StreamPart> {
      for await (const part of streamReply(messages, streamOptions)) if (part.type !== "tool-call") yield part;
    },
  };
}
