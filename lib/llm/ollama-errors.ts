import { AppError } from "@/lib/errors";

/** Ollama answers errors as `{"error": "<text>"}`; this reads that text. */
export function readOllamaErrorText(body: string): string | undefined {
  try {
    const parsed = JSON.parse(body) as unknown;
    if (parsed && typeof parsed === "object" && typeof (parsed as { error?: unknown }).error === "string") {
      return (parsed as { error: string }).error;
    }
  } catch {
    // not JSON: fall through
  }
  return undefined;
}

/** Turns an Ollama HTTP error into an error the user can act on, keeping Ollama's own words. */
export function ollamaHttpError(status: number, body: string, model?: string): AppError {
  const text = readOllamaErrorText(body) ?? (body.trim().slice(0, 300) || `HTTP ${status}`);
  if (status === 404 && /not found/i.test(text)) {
    const name = model ?? /model '([^']+)'/.exec(text)?.[1] ?? "the model";
    return new AppError(
      "bad_request:unknown_model",
      `Model '${name}' is not installed in Ollama (${text}). Pull it with \`ollama pull ${name}\` or pick another model.`,
      { details: { model: name } },
    );
  }
  const retryable = status === 429 || status >= 500;
  return new AppError("upstream:ollama", `Ollama error: ${text}`, { retryable, details: { status, ollama: text } });
}

/**
 * Every signed-in user may read this (chat errors, the model list), so it does not name the address:
 * that is for admins, on the settings page. The cause keeps it for the server's own log.
 */
export function ollamaUnreachableError(baseUrl: string, reason: string): AppError {
  return new AppError(
    "upstream:ollama_unreachable",
    `Cannot reach Ollama (${reason}). Start it with \`ollama serve\`, or set OLLAMA_BASE_URL to where it listens.`,
    { retryable: true, cause: new Error(`Cannot connect to ${baseUrl}: ${reason}`) },
  );
}

/** The reason a `fetch` failed to connect, from Node's error chain. */
export function connectFailureReason(error: unknown): string {
  let current: unknown = error;
  for (let depth = 0; current && depth < 5; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === "string") return code;
    current = (current as { cause?: unknown }).cause;
  }
  return error instanceof Error ? error.message : String(error);
}
