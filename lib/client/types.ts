/** The JSON shapes of the HTTP API (SPEC §12) as the browser sees them. */

export interface ConversationSummary {
  id: string;
  title: string;
  model: string | null;
  createdAt: number;
  updatedAt: number;
}

export type MessageStatus = "complete" | "interrupted" | "error" | "stopped";

export interface Usage {
  inputTokens: number;
  outputTokens: number;
  totalTokens: number;
}

export interface RunSummary {
  id: string;
  status: "running" | MessageStatus;
  mode: string;
  model: string;
  iterations: number;
  usage: Usage;
  elapsedMs: number | null;
  error: string | null;
  steps: unknown[];
}

export interface StoredMessage {
  id: string;
  conversationId: string;
  role: "user" | "assistant";
  content: string;
  status: MessageStatus;
  runId: string | null;
  createdAt: number;
  run: RunSummary | null;
}

export interface ConversationDetail {
  conversation: ConversationSummary;
  messages: StoredMessage[];
  files: unknown[];
  activeRunId: string | null;
}

export interface ModelInfo {
  name: string;
  family: string | null;
  parameterSize: string | null;
  quantization: string | null;
  sizeBytes: number | null;
  capabilities: string[];
  contextLength: number | null;
  usableContext: number;
  abilities: { tool_call: boolean; json_mode: boolean; thinking: boolean; vision: boolean };
}

export interface ModelList {
  models: ModelInfo[];
  defaultModel: string | null;
}

export interface Health {
  ok: boolean;
  db: boolean;
  ollama: { reachable: boolean; version: string | null; error?: string };
}

/** Data of the SSE events the chat UI reads (SPEC §12). */
export interface RunEvent {
  runId: string;
  conversationId: string;
  userMessageId: string;
  model: string;
  mode: string;
}

/** A step of the agent loop; the core UI only reads its type and tool name. */
export interface StepEvent {
  seq: number;
  iteration: number;
  type: string;
  tool?: string;
}

export type AnswerEvent = { status: "start" } | { status: "delta"; content: string } | { status: "done" };

export interface ErrorEvent {
  code: string;
  message: string;
  retryable: boolean;
}

export interface DoneEvent {
  messageId: string;
  iterations: number;
  usage: Usage;
  elapsedMs: number;
  stopped?: boolean;
}
