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
}

export const emptyUsage = (): Usage => ({ inputTokens: 0, outputTokens: 0, totalTokens: 0 });

export function addUsage(a: Usage, b: Usage): Usage {
  return {
    inputTokens: a.inputTokens + b.inputTokens,
    outputTokens: a.outputTokens + b.outputTokens,
    totalTokens: a.totalTokens + b.totalTokens,
  };
}

export interface ChatOptions {
  tools?: ToolSpec[];
  /** Ollama's `format`: "json" or a JSON schema for constrained decoding. */
  format?: "json" | Record<string, unknown>;
  temperature?: number;
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

export interface LLM {
  readonly model: string;
  readonly abilities: Abilities;
  /** Usable context: min(NUM_CTX, the model's context length). */
  readonly contextLength: number;
  chat(messages: ChatMessage[], options?: ChatOptions): Promise<ChatResult>;
  streamChat(
    messages: ChatMessage[],
    options?: { signal?: AbortSignal; temperature?: number },
  ): AsyncIterable<StreamPart>;
}
