import { estimateTextTokens, estimateTokens } from "@/lib/agent/context-guard";
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
} from "@/lib/llm/types";
import { addUsage, emptyUsage } from "@/lib/llm/types";

/**
 * A scripted model behind the `LLM` interface, for engine tests that run in milliseconds. Each
 * `chat` or `streamReply` call takes the next reply (a partial result, an error to throw, or a
 * function of the request); `streamReply` sends it in pieces (`chunks`, or word by word), thinking
 * first, each tool call whole. `streamChat` takes the next stream script. Every request is recorded.
 * Like Ollama's context window, but loudly: a call whose messages (and tool schemas or output schema)
 * pass `contextLength` by the engine's own estimate FAILS, so a model call that skips the context
 * guard cannot pass a test (docs/engine.md, "One context budget for every call").
 */

export class OverContextError extends Error {}

/** The prompt size of a call as the context guard estimates it. */
export function promptTokens(messages: ChatMessage[], options: ChatOptions = {}): number {
  const extra = options.tools ?? options.output?.schema ?? options.output;
  return estimateTokens(messages) + (extra ? estimateTextTokens(JSON.stringify(extra)) : 0);
}

export type ScriptedChat =
  | (Partial<Omit<ChatResult, "toolCalls">> & {
      toolCalls?: (Omit<ToolCall, "id"> & { id?: string })[];
      /** How `streamReply` splits `content` (joined, they must equal it); word by word by default. */
      chunks?: string[];
      /** Thrown by `streamReply` after its text, before the tool calls and the end. */
      failAfter?: Error;
    })
  | Error
  | ((messages: ChatMessage[], options: ChatOptions) => ScriptedChat | Promise<ScriptedChat>);

export type ScriptedStream = string[] | Error | { chunks: string[]; failAfter: Error };

export interface ScriptedLLM extends LLM {
  /** Every tool-loop call, `chat` or `streamReply` (`streamed` tells which). */
  chatCalls: { messages: ChatMessage[]; options: ChatOptions; streamed: boolean }[];
  streamCalls: { messages: ChatMessage[] }[];
  queueChat(...replies: ScriptedChat[]): void;
  queueStream(...streams: ScriptedStream[]): void;
  /** The calls refused for passing the context length (each also threw an OverContextError). */
  readonly overContext: string[];
  /** The sum of the usage this model reported, over every call that reported one. */
  readonly reported: Usage;
}

export const ALL_ABILITIES: Abilities = { tool_call: true, json_mode: true, thinking: false, vision: false };

let nextId = 0;

export function scriptedLLM({
  chat = [],
  stream = [],
  abilities = ALL_ABILITIES,
  contextLength = 16384,
  model = "scripted",
  onPart,
}: {
  chat?: ScriptedChat[];
  stream?: ScriptedStream[];
  abilities?: Partial<Abilities>;
  contextLength?: number;
  model?: string;
  /** Sees each part of a `streamReply` just before it is handed to the caller. */
  onPart?: (part: ReplyPart) => void;
} = {}): ScriptedLLM {
  const chatQueue = [...chat];
  const streamQueue = [...stream];

  const checkContext = (messages: ChatMessage[], options: ChatOptions = {}) => {
    const tokens = promptTokens(messages, options);
    if (tokens > contextLength) {
      llm.overContext.push(`${tokens} tokens: ${messages.map((m) => m.content.slice(0, 40)).join(" | ")}`);
      throw new OverContextError(`scripted LLM: a call of ${tokens} tokens, over its ${contextLength}-token context`);
    }
  };

  const nextReply = async (messages: ChatMessage[], options: ChatOptions, streamed: boolean) => {
    llm.chatCalls.push({ messages: structuredClone(messages), options: { ...options, signal: undefined }, streamed });
    checkContext(messages, options);
    if (options.signal?.aborted) throw new DOMException("aborted", "AbortError");
    let reply = chatQueue.shift();
    if (reply === undefined) throw new Error(`scripted LLM: no reply left for chat call ${llm.chatCalls.length}`);
    while (typeof reply === "function") reply = await reply(messages, options);
    if (reply instanceof Error) throw reply;
    const result: ChatResult = {
      content: reply.content ?? reply.chunks?.join("") ?? "",
      reasoning: reply.reasoning ?? "",
      toolCalls: (reply.toolCalls ?? []).map((call) => ({
        ...call,
        id: call.id ?? `call_${(nextId++).toString(36)}`,
      })),
      usage: reply.usage ?? { inputTokens: 10, outputTokens: 5, totalTokens: 15 },
    };
    return { result, chunks: reply.chunks, failAfter: reply.failAfter };
  };

  const report = (usage: Usage) => {
    (llm as { reported: Usage }).reported = addUsage(llm.reported, usage);
  };

  const llm: ScriptedLLM = {
    model,
    abilities: { ...ALL_ABILITIES, ...abilities },
    contextLength,
    chatCalls: [],
    streamCalls: [],
    reported: emptyUsage(),
    overContext: [],
    queueChat: (...replies) => chatQueue.push(...replies),
    queueStream: (...streams) => streamQueue.push(...streams),
    async chat(messages, options = {}) {
      const { result, failAfter } = await nextReply(messages, options, false);
      if (failAfter) throw failAfter;
      report(result.usage);
      return result;
    },
    async *streamReply(messages, options = {}): AsyncIterable<ReplyPart> {
      const { result, chunks, failAfter } = await nextReply(messages, options, true);
      const parts: ReplyPart[] = [
        ...splitWords(result.reasoning).map((text): ReplyPart => ({ type: "reasoning", text })),
        ...(chunks ?? splitWords(result.content)).map((text): ReplyPart => ({ type: "text", text })),
      ];
      for (const part of parts) {
        if (options.signal?.aborted) throw new DOMException("aborted", "AbortError");
        onPart?.(part);
        yield part;
      }
      if (failAfter) throw failAfter;
      const tail: ReplyPart[] = [
        ...result.toolCalls.map((call): ReplyPart => ({ type: "tool-call", call })),
        { type: "finish", usage: result.usage, finishReason: result.toolCalls.length > 0 ? "tool-calls" : "stop" },
      ];
      for (const part of tail) {
        onPart?.(part);
        if (part.type === "finish") report(part.usage);
        yield part;
      }
    },
    async *streamChat(messages, options = {}): AsyncIterable<StreamPart> {
      llm.streamCalls.push({ messages: structuredClone(messages) });
      checkContext(messages);
      const script = streamQueue.shift();
      if (script === undefined) throw new Error("scripted LLM: no stream left");
      if (script instanceof Error) throw script;
      const chunks = Array.isArray(script) ? script : script.chunks;
      for (const text of chunks) {
        if (options.signal?.aborted) throw new DOMException("aborted", "AbortError");
        yield { type: "text", text };
      }
      if (!Array.isArray(script)) throw script.failAfter;
      const usage = { inputTokens: 20, outputTokens: chunks.length, totalTokens: 20 + chunks.length };
      report(usage);
      yield { type: "finish", usage, finishReason: "stop" };
    },
  };
  return llm;
}

/** Word-ish pieces ("Hello ", "world"), the way tokens arrive. */
function splitWords(text: string): string[] {
  return text.match(/\s*\S+\s*/g) ?? (text ? [text] : []);
}
