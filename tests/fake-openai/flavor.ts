// Everything that differs between llama.cpp's llama-server and vLLM on the wire: ids, error bodies,
// auth rules, refusal wording, the reasoning field and the chunk envelopes. Sources: server.ts header.
import { randomBytes, randomInt } from "node:crypto";

export type Flavor = "llama-server" | "vllm";

export interface WireError {
  status: number;
  body: unknown;
}

const LLAMA_TYPES: Record<number, string> = {
  400: "invalid_request_error",
  401: "authentication_error",
  403: "permission_error",
  404: "not_found_error",
  501: "not_supported_error",
  503: "unavailable_error",
};
const VLLM_TYPES: Record<number, string> = {
  400: "BadRequestError",
  404: "NotFoundError",
  501: "NotImplementedError",
  503: "ServiceUnavailableError",
};

/** llama-server: `{"error":{"code","message","type"}}`; vLLM: `{"error":{"message","type","param","code"}}`. */
export function apiError(
  flavor: Flavor,
  status: number,
  message: string,
  extra: { type?: string; param?: string; fields?: Record<string, unknown> } = {},
): WireError {
  if (flavor === "llama-server") {
    const type = extra.type ?? LLAMA_TYPES[status] ?? "server_error";
    return { status, body: { error: { code: status, message, type, ...extra.fields } } };
  }
  const type = extra.type ?? VLLM_TYPES[status] ?? "InternalServerError";
  return { status, body: { error: { message, type, param: extra.param ?? null, code: status } } };
}

/** llama-server checks every path but its public ones (Bearer or X-Api-Key); vLLM checks only `/v1/*` (Bearer). */
export function authError(
  flavor: Flavor,
  path: string,
  headers: Record<string, unknown>,
  key: string,
): WireError | null {
  const auth = typeof headers.authorization === "string" ? headers.authorization : "";
  if (flavor === "vllm") {
    if (!path.startsWith("/v1") || auth === `Bearer ${key}`) return null;
    return { status: 401, body: { error: "Unauthorized" } };
  }
  if (["/health", "/v1/health", "/models", "/v1/models", "/"].includes(path)) return null;
  const given = (auth || (typeof headers["x-api-key"] === "string" ? headers["x-api-key"] : "")).replace(
    /^Bearer /,
    "",
  );
  if (given === key) return null;
  return { status: 401, body: { error: { message: "Invalid API Key", type: "authentication_error", code: 401 } } };
}

export function notFoundPath(flavor: Flavor): WireError {
  return flavor === "llama-server"
    ? { status: 404, body: { error: { message: "File Not Found", type: "not_found_error", code: 404 } } }
    : { status: 404, body: { detail: "Not Found" } };
}

/** llama-server: 32 alphanumerics; vLLM: uuid4 hex. */
export function completionId(flavor: Flavor): string {
  return `chatcmpl-${flavor === "llama-server" ? alphanumeric(32) : randomBytes(16).toString("hex")}`;
}

export function toolCallId(flavor: Flavor): string {
  return flavor === "llama-server" ? alphanumeric(32) : `chatcmpl-tool-${randomBytes(16).toString("hex")}`;
}

function alphanumeric(length: number): string {
  const alphabet = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
  return Array.from({ length }, () => alphabet[randomInt(alphabet.length)]).join("");
}

/** llama-server keeps DeepSeek's `reasoning_content`; vLLM renamed it `reasoning` (PR #27752, old name removed in #33402). */
export const reasoningField = (flavor: Flavor) => (flavor === "llama-server" ? "reasoning_content" : "reasoning");

/** A model the server cannot call tools with: llama-server without --jinja, vLLM without --enable-auto-tool-choice. */
export function toolsRefused(flavor: Flavor, toolChoice: unknown): WireError | null {
  if (flavor === "llama-server") {
    // A std::runtime_error in llama-server, so a 500 server_error rather than a 400.
    return apiError(flavor, 500, "tools param requires --jinja flag");
  }
  // vLLM still serves "none" (tools ignored) and "required" / a named tool (guided decoding, no parser needed).
  if (toolChoice !== undefined && toolChoice !== null && toolChoice !== "auto") return null;
  return apiError(
    flavor,
    400,
    '"auto" tool choice requires --enable-auto-tool-choice and --tool-call-parser to be set',
  );
}

/** A response_format the server will not honour, in the wording each gives for a json_schema it cannot follow. */
export function formatRefused(flavor: Flavor, type: string): WireError {
  return flavor === "llama-server"
    ? apiError(flavor, 400, `response_format type must be one of "text" or "json_object", but got: ${type}`)
    : apiError(flavor, 400, "The provided JSON schema contains features not supported by xgrammar.");
}

export function contextExceeded(flavor: Flavor, promptTokens: number, nCtx: number): WireError {
  if (flavor === "llama-server") {
    const message = `request (${promptTokens} tokens) exceeds the available context size (${nCtx} tokens), try increasing it`;
    return apiError(flavor, 400, message, {
      type: "exceed_context_size_error",
      fields: { n_prompt_tokens: promptTokens, n_ctx: nCtx },
    });
  }
  const message =
    `This model's maximum context length is ${nCtx} tokens. However, your request has ${promptTokens} input tokens. ` +
    `Please reduce the length of the input messages. (parameter=input_tokens, value=${promptTokens})`;
  return apiError(flavor, 400, message, { param: "input_tokens" });
}

/** vLLM only: llama-server accepts any max_tokens and stops with finish_reason "length" when the context is full. */
export function maxTokensTooLarge(maxTokens: number, promptTokens: number, nCtx: number): WireError {
  const message =
    `'max_tokens' or 'max_completion_tokens' is too large: ${maxTokens}. This model's maximum context length is ` +
    `${nCtx} tokens and your request has ${promptTokens} input tokens (${maxTokens} > ${nCtx} - ${promptTokens}). ` +
    `(parameter=max_tokens, value=${maxTokens})`;
  return apiError("vllm", 400, message, { param: "max_tokens" });
}
