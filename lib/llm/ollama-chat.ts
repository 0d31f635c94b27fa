import { randomBytes } from "node:crypto";
import { once } from "node:events";
import http, { type IncomingMessage } from "node:http";
import https from "node:https";
import { AppError } from "@/lib/errors";
import { parseToolArguments } from "@/lib/util/tool-arguments";
import { connectFailureReason, ollamaHttpError, ollamaUnreachableError } from "./ollama-errors";
import type { WireToolCall } from "./ollama-request";
import { readCapped } from "./ollama-stream";
import type { ToolCall, Usage } from "./types";

/**
 * One `POST /api/chat` over Node's own HTTP client, and what Ollama's reply objects mean: the body
 * is read straight from the socket's stream, with no web-stream layers between it and the caller.
 */

/** One server a chat may go to; a pool's server also counts its requests and notes its health. */
export interface ChatServer {
  url: string;
  /** The request goes out; the returned function is called once it ended. */
  begin?(): () => void;
  /** The server answered (any status). */
  answered?(): void;
  /** The server failed before answering. */
  failed?(error: unknown): void;
}

export interface ChatTarget {
  baseUrl: string;
  /** The servers to try in turn, best first (a pool's routing, `ollama-pool.ts`); without it, `baseUrl` alone. */
  route?: (model: string) => Promise<ChatServer[]>;
  model: string;
  /** Upper bound on the whole call, reply included, so a hung model cannot hold a run forever. */
  timeoutMs?: number;
  /** How long a server may take to start answering while another server could still be tried. */
  failoverTimeoutMs?: number;
  /** Longest reply line (and non-streamed body) taken from Ollama (OLLAMA_MAX_LINE_MB). */
  maxLineBytes?: number;
}

/** A failure before the reply started that another server may not have: away, silent, or a 5xx. */
function failsOver(error: unknown): boolean {
  if (!(error instanceof AppError)) return false;
  if (error.code === "upstream:ollama_unreachable" || error.code === "upstream:ollama_no_answer") return true;
  const status = (error.details as { status?: unknown } | undefined)?.status;
  return error.code === "upstream:ollama" && typeof status === "number" && status >= 500;
}

/**
 * One chat call: its request, the caller's signal (Stop) and the timeout, and what its failures mean.
 * A server failing before its reply starts hands the call to the next one; once a reply has
 * started, the call stays with its server.
 */
export class OllamaChatCall {
  private readonly timeout: AbortSignal | undefined;
  private request: http.ClientRequest | undefined;
  private response: IncomingMessage | undefined;
  private server: ChatServer;
  private release: (() => void) | undefined;
  private silent = false;

  constructor(
    private readonly target: ChatTarget,
    private readonly caller?: AbortSignal,
  ) {
    this.timeout = target.timeoutMs ? AbortSignal.timeout(target.timeoutMs) : undefined;
    this.server = { url: target.baseUrl };
  }

  /** Sends the body; resolves to the reply's body once a server answered 200. */
  async post(body: Record<string, unknown>): Promise<IncomingMessage> {
    const servers = this.target.route ? await this.target.route(this.target.model) : [this.server];
    const payload = JSON.stringify(body);
    for (const [index, server] of servers.entries()) {
      const another = index < servers.length - 1;
      try {
        return await this.postTo(server, payload, another);
      } catch (error) {
        if (!another || !failsOver(error) || this.caller?.aborted || this.timeout?.aborted) throw error;
      }
    }
    throw new Error("no Ollama server to send the chat to");
  }

  private async postTo(server: ChatServer, payload: string, another: boolean): Promise<IncomingMessage> {
    this.close();
    this.server = server;
    this.response = undefined;
    this.silent = false;
    this.release = server.begin?.();
    const url = new URL("/api/chat", server.url);
    const signals = [this.timeout, this.caller].filter((signal): signal is AbortSignal => Boolean(signal));
    const request = (url.protocol === "https:" ? https : http).request(url, {
      method: "POST",
      headers: { "content-type": "application/json", "content-length": Buffer.byteLength(payload) },
      signal: signals.length > 1 ? AbortSignal.any(signals) : signals[0],
    });
    this.request = request;
    // A failure before the reply rejects `once` below; one after it surfaces from the body's stream.
    request.on("error", () => {});
    const waitMs = another ? this.target.failoverTimeoutMs : undefined;
    const silence = waitMs
      ? setTimeout(() => {
          this.silent = true;
          request.destroy();
        }, waitMs)
      : undefined;
    request.end(payload);
    const [response] = (await once(request, "response")
      .catch((error: unknown) => {
        const failure = this.failure(error);
        server.failed?.(failure);
        throw failure;
      })
      .finally(() => clearTimeout(silence))) as [IncomingMessage];
    this.response = response;
    server.answered?.();
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
      const seconds = Math.round((this.target.timeoutMs ?? 0) / 1000);
      return new AppError("upstream:ollama_timeout", `Ollama did not finish within ${seconds} s.`, {
        retryable: true,
        details: { seconds },
      });
    }
    if (error instanceof AppError) return error;
    if (this.silent) {
      const seconds = Math.round((this.target.failoverTimeoutMs ?? 0) / 1000);
      return new AppError("upstream:ollama_no_answer", `Ollama did not start answering within ${seconds} s.`, {
        retryable: true,
        details: { seconds },
        cause: new Error(`No answer from ${this.server.url}`),
      });
    }
    if (!this.response) return ollamaUnreachableError(this.server.url, connectFailureReason(error));
    return connectionBroken(error);
  }

  /** Ends the request: a reply not read to its end closes the connection (which stops the model). */
  close(): void {
    this.request?.destroy();
    this.release?.();
    this.release = undefined;
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

/** Arguments as an object (the shared reading); ones that cannot be read are none, and the tool says what it needs. */
function toArguments(input: unknown): Record<string, unknown> {
  const parsed = parseToolArguments(input);
  return parsed.ok ? parsed.value : {};
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
