import { type AppError, isAbortError } from "@/lib/errors";
import { connectFailureReason, ollamaHttpError, ollamaUnreachableError } from "./ollama-errors";
import { type LineLimits, limitBodyBytes, surfaceMidStreamErrors } from "./ollama-stream";

/**
 * A `fetch` for `ollama-ai-provider-v2` that repairs what the provider gets wrong on the wire:
 * sampling settings and num_ctx belong in `options`, tool messages need `tool_name`,
 * `think` must match the model, Ollama's error text must survive, and a mid-stream `{"error"}`
 * line must fail the stream instead of ending it quietly.
 */

export interface ChatRequestPatch {
  numCtx: number;
  think: boolean;
  format?: "json" | Record<string, unknown>;
}

type JsonObject = Record<string, unknown>;

/** Settings the provider sends at the top level, where Ollama ignores them, and their `options` names. */
const topLevelToOptions: Record<string, string | null> = {
  temperature: "temperature",
  top_p: "top_p",
  max_output_tokens: "num_predict",
  tool_choice: null, // Ollama cannot force a tool choice: drop it.
};

export function fixChatRequestBody(body: JsonObject, patch: ChatRequestPatch): JsonObject {
  const fixed: JsonObject = { ...body };
  const options: JsonObject = { ...((body.options as JsonObject | undefined) ?? {}) };
  for (const [key, optionName] of Object.entries(topLevelToOptions)) {
    const value = fixed[key];
    delete fixed[key];
    if (optionName && value !== undefined && value !== null && options[optionName] === undefined) {
      options[optionName] = value;
    }
  }
  options.num_ctx = patch.numCtx;
  fixed.options = options;
  fixed.think = patch.think;
  if (patch.format !== undefined) fixed.format = patch.format;
  if (Array.isArray(fixed.messages)) fixed.messages = repairMessages(fixed.messages as JsonObject[]);
  if (Array.isArray(fixed.tools) && fixed.tools.length === 0) delete fixed.tools;
  return fixed;
}

function repairMessages(messages: JsonObject[]): JsonObject[] {
  const toolNames = new Map<string, string>();
  return messages.map((message) => {
    const out: JsonObject = { ...message };
    // Ollama rejects a non-string content (the provider sends [] for an image-only user turn).
    if (typeof out.content !== "string") out.content = "";
    if (Array.isArray(out.tool_calls)) {
      out.tool_calls = (out.tool_calls as JsonObject[]).map((call, index) => {
        const fn = { ...((call.function as JsonObject | undefined) ?? {}) };
        if (typeof fn.arguments === "string") fn.arguments = parseArguments(fn.arguments);
        fn.index ??= index;
        if (typeof call.id === "string" && typeof fn.name === "string") toolNames.set(call.id, fn.name);
        return { ...call, function: fn };
      });
    }
    if (out.role === "tool" && typeof out.tool_call_id === "string" && out.tool_name === undefined) {
      const name = toolNames.get(out.tool_call_id);
      if (name) out.tool_name = name;
    }
    return out;
  });
}

function parseArguments(text: string): JsonObject {
  try {
    const parsed = JSON.parse(text) as unknown;
    return parsed && typeof parsed === "object" && !Array.isArray(parsed) ? (parsed as JsonObject) : {};
  } catch {
    return {};
  }
}

export function createOllamaFetch({
  baseUrl,
  patch,
  model,
  onStreamError = () => {},
  maxLineBytes = Number.POSITIVE_INFINITY,
  onScan,
  onDone,
  fetchImpl = fetch,
}: {
  baseUrl: string;
  patch: ChatRequestPatch;
  model?: string;
  /** Called when a streamed reply ends with Ollama's error line, or is cut off for a too-long line. */
  onStreamError?: (error: AppError) => void;
  fetchImpl?: typeof fetch;
} & LineLimits): typeof fetch {
  return async (input, init) => {
    let requestInit = init;
    if (typeof init?.body === "string" && String(input).endsWith("/chat")) {
      const fixed = fixChatRequestBody(JSON.parse(init.body) as JsonObject, patch);
      requestInit = { ...init, body: JSON.stringify(fixed) };
    }
    let response: Response;
    try {
      response = await fetchImpl(input, requestInit);
    } catch (error) {
      if (isAbortError(error) || requestInit?.signal?.aborted) throw error;
      throw ollamaUnreachableError(baseUrl, connectFailureReason(error));
    }
    if (!response.ok) {
      throw ollamaHttpError(response.status, await response.text().catch(() => ""), model);
    }
    if (!response.body) return response;
    const ndjson = (response.headers.get("content-type") ?? "").includes("ndjson");
    if (!ndjson && !Number.isFinite(maxLineBytes)) return response;
    const body = ndjson
      ? surfaceMidStreamErrors(response.body, onStreamError, { maxLineBytes, onScan, onDone })
      : limitBodyBytes(response.body, maxLineBytes);
    return new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers });
  };
}
