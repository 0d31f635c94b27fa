import type { ChatMessage, ChatOptions, OutputFormat, ToolCall } from "./types";

/**
 * The body of `POST /api/chat` as Ollama reads it (docs/architecture.md, "Model access"):
 * sampling settings and `num_ctx` in `options`, `think` exactly as decided for the model,
 * tool results with `tool_name` as well as `tool_call_id`, tool-call arguments as objects,
 * and every `content` a string.
 */

export interface WireToolCall {
  id?: string;
  function: { index?: number; name?: unknown; arguments?: unknown };
}

export interface WireMessage {
  role: ChatMessage["role"];
  content: string;
  thinking?: string;
  images?: string[];
  tool_calls?: WireToolCall[];
  tool_name?: string;
  tool_call_id?: string;
}

/** Ollama's `format`: "json", or a JSON schema for constrained decoding. */
export type OllamaFormat = "json" | Record<string, unknown>;

/** Ollama's sampling `options` a chat may set for all its calls. */
export interface SamplingOptions {
  temperature?: number;
  top_p?: number;
  seed?: number;
}

export interface ChatRequest {
  model: string;
  messages: ChatMessage[];
  stream: boolean;
  numCtx: number;
  sampling?: SamplingOptions;
  /** How long Ollama keeps the model loaded afterwards. */
  keepAlive?: string | number;
  think: boolean;
  tools?: ChatOptions["tools"];
  format?: OllamaFormat;
  temperature?: number;
}

/** The engine's structured-output ask as Ollama's `format`. */
export function ollamaFormat(output: OutputFormat | undefined): OllamaFormat | undefined {
  if (!output) return undefined;
  return output.schema ?? "json";
}

function toWireCall(call: ToolCall, index: number): WireToolCall {
  return { id: call.id, function: { index, name: call.name, arguments: call.arguments } };
}

export function toWireMessage(message: ChatMessage): WireMessage {
  switch (message.role) {
    case "system":
      return { role: "system", content: message.content };
    case "user":
      return message.images?.length
        ? { role: "user", content: message.content, images: message.images }
        : { role: "user", content: message.content };
    case "assistant":
      return {
        role: "assistant",
        content: message.content,
        ...(message.reasoning ? { thinking: message.reasoning } : {}),
        ...(message.toolCalls?.length ? { tool_calls: message.toolCalls.map(toWireCall) } : {}),
      };
    default:
      return { role: "tool", content: message.content, tool_name: message.toolName, tool_call_id: message.toolCallId };
  }
}

export function chatRequestBody(request: ChatRequest): Record<string, unknown> {
  return {
    model: request.model,
    messages: request.messages.map(toWireMessage),
    stream: request.stream,
    think: request.think,
    options: {
      num_ctx: request.numCtx,
      ...request.sampling,
      ...(request.temperature === undefined ? {} : { temperature: request.temperature }),
    },
    ...(request.tools?.length
      ? {
          tools: request.tools.map((tool) => ({
            type: "function",
            function: { name: tool.name, description: tool.description, parameters: tool.parameters },
          })),
        }
      : {}),
    ...(request.format === undefined ? {} : { format: request.format }),
    ...(request.keepAlive === undefined ? {} : { keep_alive: request.keepAlive }),
  };
}
