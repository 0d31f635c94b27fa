import { randomBytes } from "node:crypto";
import { once } from "node:events";
import http, { type IncomingMessage } from "node:http";
import https from "node:https";
import { AppError } from "@/lib/errors";
import { connectFailureReason, ollamaHttpError, ollamaUnreachableError } from "./ollama-errors";
import type { WireToolCall } from "./ollama-request";
import { readCapped } from "./ollama-stream";
import type { ToolCall, Usage } from "./types";

/**
 * One `POST /api/chat` over Node's own HTTP client, and what Ollama's reply objects mean: the body
 * is read straight from the socket's stream, with no web-stream layers between it and the caller.
 */

export interface ChatTarget {
  baseUrl: string;
  model: string;
  /** Upper bound on the whole call, reply included, so a hung model cannot hold a run forever. */
  timeoutMs?: number;
  /** Longest reply line (and non-streamed body) taken from Ollama (OLLAMA_MAX_LINE_MB). */
  maxLineBytes?: number;
}

/** One chat call: its request, the caller's signal (Stop) and the timeout, and what its failures mean. */
export class OllamaChatCall {
  private readonly timeout: AbortSignal | undefined;
  private request: http.ClientRequest | undefined;
  private response: IncomingMessage | undefined;

  constructor(
    private readonly target: ChatTarget,
    private readonly caller?: AbortSignal,
  ) {
    this.timeout = target.timeoutMs ? AbortSignal.timeout(target.timeoutMs) : undefined;
  }

  /** Sends the body; resolves to the reply's body once Ollama answered 200. */
  async post(body: Record<string, unknown>): Promise<IncomingMessage> {
    const url = new URL("/api/chat", this.target.baseUrl);
    const payload = JSON.stringify(body);
    const signals = [this.timeout, this.caller].filter((signal): signal is AbortSignal => Boolean(signal));
    const request = (url.protocol === "https:" ? https : http).request(url, {
      method: "POST",
      headers: { "content-type": "application/json", "content-length": Buffer.byteLength(payload) },
      signal: signals.length > 1 ? AbortSignal.any(signals) : signals[0],
    });
    this.request = request;
    // A failure before the reply rejects `once` below; one after it surfaces from the body's stream.
    request.on("error", () => {});
    request.end(payload);
    const [response] = (await once(request, "response").catch((error: unknown) => {
      throw this.failure(error);
    })) as [IncomingMessage];
    this.response = response;
    if (response.statusCode !== 200) {
      const text = await readCapped(response, this.target.maxLineBytes);
      throw ollamaHttpError(response.statusCode ?? 500, text, this.target.model);
    }
    return response;
  }

  /** What an error while calling or reading means: Stop, the timeout, Ollama's own words, or a broken connection. */
  failure(error: unknown): unknown {
    if (this.caller?.aborted) return new DOMException("The run was stopped.", "AbortError");
    if (this.timeout?.aborted) {
      return new AppError(
        "upstream:ollama_timeout",
        `Ollama did not finish within ${Math.round((this.target.timeoutMs ?? 0) / 1000)} s.`,
        { retryable: true },
      );
    }
    if (error instanceof AppError) return error;
    if (!this.response) return ollamaUnreachableError(this.target.baseUrl, connectFailureReason(error));
    return connectionBroken(error);
  }

  /** Ends the request: a reply not read to its end closes the connection (which stops the model). */
  close(): void {
    this.request?.destroy();
  }
}

export function connectionBroken(cause?: unknown): AppError {
  return new AppError("upstream:ollama_connection", "The connection to Ollama broke before the reply was finished.", {
    retryable: true,
    cause,
  });
}

/** One object of Ollama's reply: a streamed line, or the whole non-streamed reply. */
export interface ReplyChunk {
  message?: { content?: unknown; thinking?: unknown; tool_calls?: WireToolCall[] };
  done?: boolean;
  done_reason?: string;
  prompt_eval_count?: number;
  eval_count?: number;
  eval_duration?: number;
}

/** Parses one reply object; Ollama's `{"error"}` (written as the last line once streaming began) throws its text. */
export function parseReplyChunk(text: string): ReplyChunk {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new AppError("upstream:ollama", `Ollama sent a reply that is not JSON: ${text.slice(0, 100)}`, {
      retryable: true,
    });
  }
  if (!parsed || typeof parsed !== "object" || Array.isArray(parsed)) {
    throw new AppError("upstream:ollama", `Ollama sent a reply that is not an object: ${text.slice(0, 100)}`, {
      retryable: true,
    });
  }
  if (typeof (parsed as { error?: unknown }).error === "string") throw ollamaHttpError(500, text);
  return parsed as ReplyChunk;
}

/** Arguments as an object: small models sometimes send them as a JSON string, or not at all. */
function toArguments(input: unknown): Record<string, unknown> {
  if (typeof input === "string") {
    try {
      return toArguments(JSON.parse(input));
    } catch {
      return {};
    }
  }
  return input && typeof input === "object" && !Array.isArray(input) ? (input as Record<string, unknown>) : {};
}

/** The tool calls of a reply object; a call without a name or arguments is not a call. */
export function toolCallsOf(chunk: ReplyChunk): ToolCall[] {
  return (chunk.message?.tool_calls ?? []).flatMap((call): ToolCall[] => {
    const { name, arguments: input } = call?.function ?? {};
    if (typeof name !== "string" || input === undefined || input === null) return [];
    const id = typeof call.id === "string" && call.id ? call.id : `call_${randomBytes(4).toString("hex")}`;
    return [{ id, name, arguments: toArguments(input) }];
  });
}

/** Text and thinking of a reply object ("" when it has none). */
export function textsOf(chunk: ReplyChunk): { content: string; thinking: string } {
  const { content, thinking } = chunk.message ?? {};
  return {
    content: typeof content === "string" ? content : "",
    thinking: typeof thinking === "string" ? thinking : "",
  };
}

/** Token counts of the final reply object; `withGeneration` adds how long the output took (`eval_duration`). */
export function usageOf(chunk: ReplyChunk, withGeneration: boolean): Usage {
  const inputTokens = chunk.prompt_eval_count || 0;
  const outputTokens = chunk.eval_count || 0;
  const generation =
    withGeneration && typeof chunk.eval_count === "number" && typeof chunk.eval_duration === "number"
      ? { generationMs: chunk.eval_duration / 1e6 }
      : {};
  return { inputTokens, outputTokens, totalTokens: inputTokens + outputTokens, ...generation };
}

export function finishReasonOf(chunk: ReplyChunk, calledTools: boolean): string {
  if (calledTools) return "tool-calls";
  return chunk.done_reason === "stop" || chunk.done_reason === "length" ? chunk.done_reason : "other";
}
