/** What the rest of the app knows about a model. Framework-free on purpose. */

export interface Abilities {
  tool_call: boolean;
  json_mode: boolean;
  thinking: boolean;
  vision: boolean;
}

export interface ToolCall {
  id: string;
  name: string;
  arguments: Record<string, unknown>;
}

export type ChatMessage =
  | { role: "system"; content: string }
  | { role: "user"; content: string; images?: string[] }
  | { role: "assistant"; content: string; toolCalls?: ToolCall[]; reasoning?: string }
  | { role: "tool"; content: string; toolCallId: string; toolName: string };

export interface ToolSpec {
  name: string;
  description: string;
  /** JSON schema of the arguments object. */
  parameters: Record<string, unknown>;
}

export interface Usage {
  inputTokens: number;
  outputTokens: number;
  totalTokens: number;
  /** How long the model took to write its output tokens (Ollama's `eval_duration`), when it said. */
  generationMs?: number;
}

export const emptyUsage = (): Usage => ({ inputTokens: 0, outputTokens: 0, totalTokens: 0 });

export function addUsage(a: Usage, b: Usage): Usage {
  const generationMs =
    a.generationMs === undefined && b.generationMs === undefined
      ? undefined
      : (a.generationMs ?? 0) + (b.generationMs ?? 0);
  return {
    inputTokens: a.inputTokens + b.inputTokens,
    outputTokens: a.outputTokens + b.outputTokens,
    totalTokens: a.totalTokens + b.totalTokens,
    ...(generationMs === undefined ? {} : { generationMs }),
  };
}

/**
 * Structured output: the reply is one JSON object, of `schema` when given. Each adapter maps it to
 * its server's way (Ollama's `format`, OpenAI's `response_format`).
 */
export interface OutputFormat {
  type: "json";
  /** JSON schema of the object, for constrained decoding where the server can. */
  schema?: Record<string, unknown>;
}

/** What the engine asks of one call; each adapter maps it to its server's request. */
export interface ChatOptions {
  tools?: ToolSpec[];
  output?: OutputFormat;
  temperature?: number;
  /**
   * Thinking on or off for this call (false: the title); unset = the model's configured way.
   * A model that cannot think does not, whatever is asked.
   */
  thinking?: boolean;
  signal?: AbortSignal;
}

export interface ChatResult {
  content: string;
  toolCalls: ToolCall[];
  reasoning: string;
  usage: Usage;
}

export type StreamPart =
  | { type: "text"; text: string }
  | { type: "reasoning"; text: string }
  | { type: "finish"; usage: Usage; finishReason: string };

/** One piece of a streamed tool-loop reply: text and thinking as they grow, each tool call whole. */
export type ReplyPart =
  | { type: "text"; text: string }
  | { type: "reasoning"; text: string }
  | { type: "tool-call"; call: ToolCall }
  | { type: "finish"; usage: Usage; finishReason: string };

export interface LLM {
  readonly model: string;
  readonly abilities: Abilities;
  /** Usable context: min(NUM_CTX, the model's context length). */
  readonly contextLength: number;
  chat(messages: ChatMessage[], options?: ChatOptions): Promise<ChatResult>;
  /** `chat`, streamed: the tool loop's call, so a direct answer can be shown as it is written. */
  streamReply(messages: ChatMessage[], options?: ChatOptions): AsyncIterable<ReplyPart>;
  streamChat(
    messages: ChatMessage[],
    options?: { signal?: AbortSignal; temperature?: number },
  ): AsyncIterable<StreamPart>;
}
