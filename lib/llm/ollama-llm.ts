import {
  type ChatTarget,
  connectionBroken,
  finishReasonOf,
  OllamaChatCall,
  parseReplyChunk,
  type ReplyChunk,
  textsOf,
  toolCallsOf,
  usageOf,
} from "./ollama-chat";
import { chatRequestBody, ollamaFormat, type SamplingOptions } from "./ollama-request";
import { ndjsonLines, readCapped } from "./ollama-stream";
import type { Abilities, ChatMessage, ChatOptions, ChatResult, LLM, ReplyPart, StreamPart } from "./types";

/** The `LLM` on Ollama's `/api/chat`, spoken directly (docs/architecture.md, "Model access"). */

export interface OllamaLLMOptions extends ChatTarget {
  abilities: Abilities;
  /** The model's own context length, if Ollama reported it. */
  modelContextLength: number | null;
  numCtx: number;
  /** Ask thinking models to think (sent as `think: true` only when the model can). */
  think?: boolean;
  /** Sampling options of every call (a chat's own settings); a call's own `temperature` wins. */
  sampling?: SamplingOptions;
  /** `keep_alive` sent with every request: its model role's (docs/architecture.md, "Model access"). */
  keepAlive?: string | number;
}

export function createOllamaLLM(options: OllamaLLMOptions): LLM {
  const contextLength = Math.min(options.numCtx, options.modelContextLength ?? options.numCtx);
  const defaultThink = options.abilities.thinking && (options.think ?? true);

  const body = (messages: ChatMessage[], chatOptions: ChatOptions, stream: boolean) =>
    chatRequestBody({
      model: options.model,
      messages,
      stream,
      numCtx: contextLength,
      sampling: options.sampling,
      keepAlive: options.keepAlive,
      think: chatOptions.thinking === undefined ? defaultThink : options.abilities.thinking && chatOptions.thinking,
      tools: chatOptions.tools,
      format: ollamaFormat(chatOptions.output),
      temperature: chatOptions.temperature,
    });

  /** One streamed reply: thinking and text as they arrive, each tool call whole, then usage. */
  async function* streamReply(messages: ChatMessage[], chatOptions: ChatOptions = {}): AsyncIterable<ReplyPart> {
    const call = new OllamaChatCall(options, chatOptions.signal);
    try {
      const reply = await call.post(body(messages, chatOptions, true));
      let last: ReplyChunk | undefined;
      let calledTools = false;
      for await (const line of ndjsonLines(reply, { maxLineBytes: options.maxLineBytes })) {
        const chunk = parseReplyChunk(line);
        const { content, thinking } = textsOf(chunk);
        if (thinking) yield { type: "reasoning", text: thinking };
        if (content) yield { type: "text", text: content };
        for (const toolCall of toolCallsOf(chunk)) {
          calledTools = true;
          yield { type: "tool-call", call: toolCall };
        }
        if (chunk.done) last = chunk;
      }
      // Ollama always ends a reply with its `"done":true` line; a body that stops before it was cut.
      if (!last) throw connectionBroken();
      yield { type: "finish", usage: usageOf(last, true), finishReason: finishReasonOf(last, calledTools) };
    } catch (error) {
      throw call.failure(error);
    } finally {
      call.close();
    }
  }

  return {
    model: options.model,
    abilities: options.abilities,
    contextLength,

    async chat(messages, chatOptions = {}): Promise<ChatResult> {
      const call = new OllamaChatCall(options, chatOptions.signal);
      try {
        const reply = parseReplyChunk(
          await readCapped(await call.post(body(messages, chatOptions, false)), options.maxLineBytes),
        );
        const { content, thinking } = textsOf(reply);
        return { content, toolCalls: toolCallsOf(reply), reasoning: thinking, usage: usageOf(reply, false) };
      } catch (error) {
        throw call.failure(error);
      } finally {
        call.close();
      }
    },

    streamReply,

    async *streamChat(messages, streamOptions = {}): AsyncIterable<StreamPart> {
      for await (const part of streamReply(messages, streamOptions)) if (part.type !== "tool-call") yield part;
    },
  };
}
