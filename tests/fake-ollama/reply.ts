// What the fake "model" answers: scripted replies, the default echo responder with its
// [slow]/[error]/[think]/[tool] markers, and the plan of chunks one reply becomes on the wire.
import { randomInt } from "node:crypto";
import type { ChatRequestBody, ToolDefinition, WireToolCall } from "./decode";
import type { FakeModel } from "./models";

export interface ScriptedToolCall {
  name: string;
  /** A string is sent as-is, to mimic broken models. */
  arguments: Record<string, unknown> | string;
  id?: string;
}

/** A declarative `match` that survives JSON, for scripts sent through the control API. */
export interface ReplyCondition {
  model?: string;
  lastUserIncludes?: string;
  hasTools?: boolean;
  stream?: boolean;
}

export interface ScriptedReply {
  match?: (req: ChatRequestBody) => boolean;
  when?: ReplyCondition;
  content?: string;
  chunks?: string[];
  thinking?: string;
  toolCalls?: ScriptedToolCall[];
  chunkDelayMs?: number;
  delayMs?: number;
  errorStatus?: number;
  error?: string;
  midStreamError?: string;
  /** After the chunks the connection is cut, with no last line: Ollama or the network went away. */
  dropConnection?: boolean;
  hang?: boolean;
  doneReason?: "stop" | "length";
  promptEvalCount?: number;
  evalCount?: number;
}

/** One streamed chunk's message, before the envelope (model, created_at, done) is added. */
export interface MessagePart {
  content: string;
  thinking?: string;
  tool_calls?: WireToolCall[];
}

export interface ReplyPlan {
  delayMs: number;
  chunkDelayMs: number;
  hang: boolean;
  error?: { status: number; message: string };
  parts: MessagePart[];
  midStreamError?: string;
  dropConnection: boolean;
  doneReason: "stop" | "length";
  promptEvalCount: number;
  evalCount: number;
}

export const RUNNER_STOPPED = "model runner has unexpectedly stopped";

export function replyMatches(reply: ScriptedReply, req: ChatRequestBody): boolean {
  if (reply.match && !reply.match(req)) return false;
  const when = reply.when;
  if (!when) return true;
  if (when.model !== undefined && when.model !== req.model) return false;
  if (when.hasTools !== undefined && when.hasTools !== (req.tools?.length ?? 0) > 0) return false;
  if (when.stream !== undefined && when.stream !== (req.stream !== false)) return false;
  if (when.lastUserIncludes !== undefined && !lastUserText(req).includes(when.lastUserIncludes)) return false;
  return true;
}

export function lastUserText(req: ChatRequestBody): string {
  const users = (req.messages ?? []).filter((m) => m.role === "user");
  return users[users.length - 1]?.content ?? "";
}

/** Splits text into word-ish pieces ("Hello ", "world") the way tokens arrive. */
export function splitWords(text: string): string[] {
  return text.match(/\s*\S+\s*/g) ?? (text ? [text] : []);
}

export function toolCallId(): string {
  const alphabet = "abcdefghijklmnopqrstuvwxyz0123456789";
  let id = "call_";
  for (let i = 0; i < 8; i++) id += alphabet[randomInt(alphabet.length)];
  return id;
}

function estimateTokens(text: string): number {
  return Math.max(1, Math.ceil(text.length / 4));
}

function promptTokens(req: ChatRequestBody): number {
  const messages = req.messages ?? [];
  const text = messages.map((m) => `${m.role}${m.content ?? ""}${JSON.stringify(m.tool_calls ?? "")}`);
  return estimateTokens(text.join("") + JSON.stringify(req.tools ?? "")) + 4 * messages.length;
}

export function canThink(model: FakeModel, req: ChatRequestBody): boolean {
  return model.capabilities.includes("thinking") && req.think !== false;
}

export function planReply(reply: ScriptedReply, req: ChatRequestBody, model: FakeModel): ReplyPlan {
  const parts: MessagePart[] = [];
  if (reply.thinking && canThink(model, req)) {
    for (const piece of splitWords(reply.thinking)) parts.push({ content: "", thinking: piece });
  }
  for (const piece of reply.chunks ?? splitWords(reply.content ?? "")) parts.push({ content: piece });
  const calls = reply.toolCalls ?? [];
  if ((req.tools?.length ?? 0) > 0) {
    calls.forEach((call, index) => {
      const wire = { id: call.id ?? toolCallId(), function: { index, name: call.name, arguments: call.arguments } };
      parts.push({ content: "", tool_calls: [wire] });
    });
  } else {
    // Ollama parses tool calls only when the request offered tools; otherwise the model's
    // attempt stays plain text in content.
    for (const call of calls) parts.push({ content: JSON.stringify({ name: call.name, arguments: call.arguments }) });
  }
  const output = parts.map((p) => p.content + (p.thinking ?? "") + JSON.stringify(p.tool_calls ?? "")).join("");
  const hasError = reply.errorStatus !== undefined || reply.error !== undefined;
  return {
    delayMs: reply.delayMs ?? 0,
    chunkDelayMs: reply.chunkDelayMs ?? 0,
    hang: reply.hang === true,
    error: hasError ? { status: reply.errorStatus ?? 500, message: reply.error ?? "something went wrong" } : undefined,
    parts,
    midStreamError: reply.midStreamError,
    dropConnection: reply.dropConnection === true,
    doneReason: reply.doneReason ?? "stop",
    promptEvalCount: reply.promptEvalCount ?? promptTokens(req),
    evalCount: reply.evalCount ?? estimateTokens(output),
  };
}

const MARKERS = /\[(?:slow|error|think|tool(?::[\w.-]+)?)\]/gi;

/**
 * What the echo repeats: the last user message, or — for a long structured prompt such as the
 * app's synthesis request ("Question:\n<q>\n\nResearch trace: ...") — its first paragraph
 * without a leading "Label:" line.
 */
function echoText(text: string): string {
  const first = text.split(/\n\s*\n/)[0] ?? text;
  return first.replace(/^[^\n]{1,20}[:：]\n/, "");
}

/** The reply when nothing is scripted: a short Markdown echo of the last user message. */
export function defaultReply(req: ChatRequestBody): ScriptedReply {
  const text = lastUserText(req);
  const question = echoText(text).replace(MARKERS, "").replace(/\s+/g, " ").trim().slice(0, 200) || "(empty message)";
  const reply: ScriptedReply = { content: `**Echo:** ${question}\n\n- item one\n- item two` };
  if (req.format !== undefined && req.format !== null && req.format !== "") {
    const value = req.format === "json" ? { echo: question } : exampleFromSchema(req.format, question);
    reply.content = JSON.stringify(value);
  }
  if (/\[think\]/i.test(text)) reply.thinking = `The user asks: "${question}". A short echo will do.`;
  // [slow] and [error] shape a streamed answer; the agent's non-streamed tool-loop calls stay quick.
  const streaming = req.stream !== false;
  if (streaming && /\[slow\]/i.test(text)) {
    const lines = Array.from({ length: 39 }, (_, i) => `- line ${i + 1}\n`);
    reply.chunks = [`**Echo:** ${question}\n\n`, ...lines];
    reply.content = reply.chunks.join("");
    reply.chunkDelayMs = 150;
  }
  if (streaming && /\[error\]/i.test(text)) {
    reply.chunks = ["**Echo:** ", question, "\n\n"];
    reply.midStreamError = RUNNER_STOPPED;
  }
  const toolMarker = /\[tool(?::([\w.-]+))?\]/i.exec(text);
  const lastRole = req.messages?.[req.messages.length - 1]?.role;
  if (toolMarker && lastRole === "user" && req.tools?.length) {
    const wanted = toolMarker[1];
    const tool: ToolDefinition | undefined = wanted ? req.tools.find((t) => t.function.name === wanted) : req.tools[0];
    if (tool) {
      const args = exampleFromSchema(tool.function.parameters ?? { type: "object" }, question);
      reply.toolCalls = [{ name: tool.function.name, arguments: isRecord(args) ? args : {} }];
      reply.content = "";
      reply.chunks = undefined;
    }
  }
  return reply;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** A minimal value satisfying a JSON schema, strings filled with `text`. */
export function exampleFromSchema(schema: unknown, text: string): unknown {
  if (!isRecord(schema)) return text;
  if (Array.isArray(schema.enum)) return schema.enum[0];
  const type = Array.isArray(schema.type) ? schema.type[0] : schema.type;
  switch (type) {
    case "object": {
      const props = isRecord(schema.properties) ? schema.properties : {};
      const out: Record<string, unknown> = {};
      for (const [key, sub] of Object.entries(props)) out[key] = exampleFromSchema(sub, text);
      return out;
    }
    case "array":
      return [exampleFromSchema(schema.items, text)];
    case "integer":
    case "number":
      return 1;
    case "boolean":
      return true;
    case "null":
      return null;
    default:
      return text;
  }
}
