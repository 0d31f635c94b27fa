import type { Abilities, ChatMessage, ChatOptions, ChatResult, LLM, StreamPart, ToolCall } from "@/lib/llm/types";

/**
 * A scripted model behind the `LLM` interface, for engine tests that run in milliseconds. Each
 * `chat` call takes the next reply (a partial result, an error to throw, or a function of the
 * request); `streamChat` takes the next stream script. Every request is recorded.
 */

export type ScriptedChat =
  | (Partial<Omit<ChatResult, "toolCalls">> & { toolCalls?: (Omit<ToolCall, "id"> & { id?: string })[] })
  | Error
  | ((messages: ChatMessage[], options: ChatOptions) => ScriptedChat | Promise<ScriptedChat>);

export type ScriptedStream = string[] | Error | { chunks: string[]; failAfter: Error };

export interface ScriptedLLM extends LLM {
  chatCalls: { messages: ChatMessage[]; options: ChatOptions }[];
  streamCalls: { messages: ChatMessage[] }[];
  queueChat(...replies: ScriptedChat[]): void;
  queueStream(...streams: ScriptedStream[]): void;
}

export const ALL_ABILITIES: Abilities = { tool_call: true, json_mode: true, thinking: false, vision: false };

let nextId = 0;

export function scriptedLLM({
  chat = [],
  stream = [],
  abilities = ALL_ABILITIES,
  contextLength = 16384,
  model = "scripted",
}: {
  chat?: ScriptedChat[];
  stream?: ScriptedStream[];
  abilities?: Partial<Abilities>;
  contextLength?: number;
  model?: string;
} = {}): ScriptedLLM {
  const chatQueue = [...chat];
  const streamQueue = [...stream];
  const llm: ScriptedLLM = {
    model,
    abilities: { ...ALL_ABILITIES, ...abilities },
    contextLength,
    chatCalls: [],
    streamCalls: [],
    queueChat: (...replies) => chatQueue.push(...replies),
    queueStream: (...streams) => streamQueue.push(...streams),
    async chat(messages, options = {}) {
      llm.chatCalls.push({ messages: structuredClone(messages), options: { ...options, signal: undefined } });
      if (options.signal?.aborted) throw new DOMException("aborted", "AbortError");
      let reply = chatQueue.shift();
      if (reply === undefined) throw new Error(`scripted LLM: no reply left for chat call ${llm.chatCalls.length}`);
      while (typeof reply === "function") reply = await reply(messages, options);
      if (reply instanceof Error) throw reply;
      return {
        content: reply.content ?? "",
        reasoning: reply.reasoning ?? "",
        toolCalls: (reply.toolCalls ?? []).map((call) => ({
          ...call,
          id: call.id ?? `call_${(nextId++).toString(36)}`,
        })),
        usage: reply.usage ?? { inputTokens: 10, outputTokens: 5, totalTokens: 15 },
      };
    },
    async *streamChat(messages, options = {}): AsyncIterable<StreamPart> {
      llm.streamCalls.push({ messages: structuredClone(messages) });
      const script = streamQueue.shift();
      if (script === undefined) throw new Error("scripted LLM: no stream left");
      if (script instanceof Error) throw script;
      const chunks = Array.isArray(script) ? script : script.chunks;
      for (const text of chunks) {
        if (options.signal?.aborted) throw new DOMException("aborted", "AbortError");
        yield { type: "text", text };
      }
      if (!Array.isArray(script)) throw script.failAfter;
      yield {
        type: "finish",
        usage: { inputTokens: 20, outputTokens: chunks.length, totalTokens: 20 + chunks.length },
        finishReason: "stop",
      };
    },
  };
  return llm;
}
