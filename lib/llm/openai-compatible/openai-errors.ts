import { APICallError } from "ai";
import { AppError } from "@/lib/errors";
import { connectFailureReason } from "../ollama-errors";
import { keyRefusedError } from "./server-models";

/**
 * What an OpenAI-compatible server's failures mean, each naming the server by its label (never its
 * address or key: every signed-in user may read these; the cause keeps the rest for the log).
 */

/** The text of an error body: OpenAI's `{"error":{"message"}}`, vLLM's `{"error":"…"}` or `{"detail"}`, else the text. */
export function serverErrorText(body: string | undefined, fallback: string): string {
  if (body) {
    try {
      const parsed = JSON.parse(body) as { error?: unknown; detail?: unknown; message?: unknown };
      const error = parsed?.error;
      if (error && typeof error === "object" && typeof (error as { message?: unknown }).message === "string") {
        return (error as { message: string }).message;
      }
      if (typeof error === "string") return error;
      if (typeof parsed?.detail === "string") return parsed.detail;
      if (typeof parsed?.message === "string") return parsed.message;
    } catch {
      // not JSON: the text itself
    }
    const text = body.trim().slice(0, 300);
    if (text) return text;
  }
  return fallback;
}

/** llama-server's `exceed_context_size_error` and vLLM's "maximum context length" wordings. */
const CONTEXT_EXCEEDED =
  /exceeds the available context size|maximum context length|context length exceeded|too many tokens/i;
/** vLLM's "The model `x` does not exist." and llama-server's router "model 'x' not found". */
const MODEL_MISSING = /model [`'"]?[^`'"]*[`'"]? (?:does not exist|not found)/i;

export function unreachableError(label: string, reason: string, cause?: unknown): AppError {
  return new AppError("upstream:openai_unreachable", `Cannot reach the server "${label}" (${reason}).`, {
    retryable: true,
    details: { server: label },
    cause,
  });
}

export function connectionBrokenError(label: string, cause?: unknown): AppError {
  return new AppError(
    "upstream:openai_connection",
    `The connection to the server "${label}" broke before the reply was finished.`,
    { retryable: true, details: { server: label }, cause },
  );
}

export function timeoutError(label: string, seconds: number): AppError {
  return new AppError("upstream:openai_timeout", `The server "${label}" did not finish within ${seconds} s.`, {
    retryable: true,
    details: { server: label, seconds },
  });
}

/** An HTTP error answer of the server, in its own words where it gave them. */
export function serverHttpError(label: string, model: string, status: number, text: string): AppError {
  if (status === 401 || status === 403) return keyRefusedError({ label }, status);
  if (CONTEXT_EXCEEDED.test(text)) {
    return new AppError(
      "upstream:openai_context_exceeded",
      `The request is longer than the context of "${model}" on the server "${label}": ${text}`,
      { details: { server: label, model, message: text } },
    );
  }
  if (status === 404 || MODEL_MISSING.test(text)) {
    const name = `${model}@${label}`;
    return new AppError("bad_request:unknown_model", `Model '${name}' is not on the server "${label}" (${text}).`, {
      details: { model: name },
    });
  }
  return new AppError("upstream:openai_compatible", `The server "${label}" answered: ${text}`, {
    retryable: status === 429 || status >= 500,
    details: { server: label, status, message: text },
  });
}

/** Any failure of an AI SDK call, as one of the above; an AppError or an abort stays as it is. */
export function openAIFailure(label: string, model: string, error: unknown): unknown {
  if (error instanceof AppError) return error;
  if (APICallError.isInstance(error)) {
    if (error.statusCode === undefined) {
      return unreachableError(label, connectFailureReason(error.cause ?? error), error);
    }
    // A 200 reply whose body failed while being read: it started, then broke.
    if (error.statusCode < 300) return connectionBrokenError(label, error);
    const text = serverErrorText(error.responseBody, error.message || `HTTP ${error.statusCode}`);
    return serverHttpError(label, model, error.statusCode, text);
  }
  // An error event in the stream: `{"message", …}` as the server sent it.
  if (error && typeof error === "object" && typeof (error as { message?: unknown }).message === "string") {
    const message = (error as { message: string }).message;
    if (!(error instanceof Error)) return serverHttpError(label, model, 500, message);
    // The body stopped before its end ("terminated", a reset socket, no finish reason).
    if (/terminated|socket|ECONNRESET|ended without a finish reason|other side closed/i.test(message)) {
      return connectionBrokenError(label, error);
    }
  }
  if (typeof error === "string") return serverHttpError(label, model, 500, error);
  return error;
}
