// What the fake "model" answers: scripted replies matched by `when`, and the echo it gives when nothing
// is scripted, with the same [think] / [tool] / [tool:name] / [slow] / [error] markers as the fake Ollama.
import { exampleFromSchema, splitWords } from "../fake-ollama/reply";

export interface ScriptedToolCall {
  name: string;
  /** An object is sent as its JSON text; a string is sent as-is, to mimic broken models. */
  arguments: Record<string, unknown> | string;
  id?: string;
}

/** A declarative match that survives JSON, for scripts sent through the control API. */
export interface ReplyCondition {
  model?: string;
  lastUserIncludes?: string;
  hasTools?: boolean;
  stream?: boolean;
}

export interface ScriptedReply {
  match?: (req: ChatRequest) => boolean;
  when?: ReplyCondition;
  content?: string;
  /** The content as streamed, piece by piece (default: word by word). */
  chunks?: string[];
  /** Thinking: `reasoning_content` / `reasoning` deltas, or `<think>…</think>` in content on a model without a parser. */
  reasoning?: string;
  toolCalls?: ScriptedToolCall[];
  finishReason?: "stop" | "length";
  promptTokens?: number;
  completionTokens?: number;
  delayMs?: number;
  chunkDelayMs?: number;
  /** Answer this HTTP status with the flavour's error body instead of a completion. */
  errorStatus?: number;
  error?: string;
  /** After the chunks, an SSE `data: {"error":…}` event instead of the finish chunk. */
  midStreamError?: string;
  /** After the chunks the connection is cut: no finish chunk, no `[DONE]`. */
  dropConnection?: boolean;
  /** Never answer; only the client giving up ends the request. */
  hang?: boolean;
}

export interface ChatMessage {
  role: string;
  content?: string | { type: string; text?: string }[] | null;
  tool_calls?: unknown[];
}

export interface ToolDefinition {
  type: "function";
  function: { name: string; description?: string; parameters?: Record<string, unknown> };
}

export interface ChatRequest {
  model?: string;
  messages?: ChatMessage[];
  stream?: boolean;
  stream_options?: { include_usage?: boolean };
  tools?: ToolDefinition[];
  tool_choice?: unknown;
  response_format?: { type?: string; json_schema?: { name?: string; schema?: unknown } };
  max_tokens?: number;
  max_completion_tokens?: number;
  chat_template_kwargs?: { enable_thinking?: boolean };
}

export function replyMatches(reply: ScriptedReply, req: ChatRequest): boolean {
  if (reply.match && !reply.match(req)) return false;
  const when = reply.when ?? {};
  if (when.model !== undefined && when.model !== req.model) return false;
  if (when.hasTools !== undefined && when.hasTools !== (req.tools?.length ?? 0) > 0) return false;
  if (when.stream !== undefined && when.stream !== (req.stream === true)) return false;
  if (when.lastUserIncludes !== undefined && !lastUserText(req).includes(when.lastUserIncludes)) return false;
  return true;
}

export function messageText(message: ChatMessage | undefined): string {
  const content = message?.content;
  if (typeof content === "string") return content;
  return (content ?? []).map((part) => (part.type === "text" ? (part.text ?? "") : "")).join("");
}

export function lastUserText(req: ChatRequest): string {
  return messageText((req.messages ?? []).filter((m) => m.role === "user").at(-1));
}

export function estimateTokens(text: string): number {
  return Math.max(1, Math.ceil(text.length / 4));
}

export function promptTokens(req: ChatRequest): number {
  const messages = req.messages ?? [];
  const text = messages.map((m) => m.role + messageText(m) + JSON.stringify(m.tool_calls ?? ""));
  return estimateTokens(text.join("") + JSON.stringify(req.tools ?? "")) + 4 * messages.length;
}

const MARKERS = /\[(?:slow|error|think|tool(?::[\w.-]+)?)\]/gi;

/** The reply when nothing is scripted: a short Markdown echo of the last user message (JSON when asked for JSON). */
export function defaultReply(req: ChatRequest, honoursFormat: boolean): ScriptedReply {
  const text = lastUserText(req);
  const question = text.replace(MARKERS, "").replace(/\s+/g, " ").trim().slice(0, 200) || "(empty message)";
  const reply: ScriptedReply = { content: `**Echo:** ${question}\n\n- item one\n- item two` };
  const format = req.response_format?.type;
  if (honoursFormat && format === "json_object") reply.content = JSON.stringify({ echo: question });
  if (honoursFormat && format === "json_schema") {
    reply.content = JSON.stringify(exampleFromSchema(req.response_format?.json_schema?.schema ?? {}, question));
  }
  if (/\[think\]/i.test(text)) reply.reasoning = `The user asks: "${question}". A short echo will do.`;
  if (req.stream && /\[slow\]/i.test(text)) {
    reply.chunks = [`**Echo:** ${question}\n\n`, ...Array.from({ length: 39 }, (_, i) => `- line ${i + 1}\n`)];
    reply.chunkDelayMs = 150;
  }
  if (req.stream && /\[error\]/i.test(text)) {
    reply.chunks = ["**Echo:** ", question, "\n\n"];
    reply.midStreamError = "the fake model failed mid-answer";
  }
  const marker = /\[tool(?::([\w.-]+))?\]/i.exec(text);
  const lastRole = req.messages?.at(-1)?.role;
  const tool = marker && lastRole === "user" ? pickTool(req.tools ?? [], marker[1]) : undefined;
  if (tool) {
    const args = exampleFromSchema(tool.function.parameters ?? { type: "object" }, question);
    reply.toolCalls = [{ name: tool.function.name, arguments: isRecord(args) ? args : {} }];
    reply.content = "";
    reply.chunks = undefined;
  }
  return reply;
}

function pickTool(tools: ToolDefinition[], name: string | undefined): ToolDefinition | undefined {
  return name ? tools.find((t) => t.function.name === name) : tools[0];
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Content pieces as they go out: the scripted chunks, else word by word. */
export function contentPieces(reply: ScriptedReply): string[] {
  return reply.chunks ?? splitWords(reply.content ?? "");
}

/** Splits a tool call's arguments text the way servers stream it: a few characters per delta. */
export function argumentPieces(text: string, size = 6): string[] {
  const pieces: string[] = [];
  for (let i = 0; i < text.length; i += size) pieces.push(text.slice(i, i + size));
  return pieces;
}
